"""The paper's claims that the book checks, each counted once.

A claim is one statement of the paper: a definition, a theorem *with the table column
printed from it*, a remark, an experiment. Several findings may be about one claim (the
theorem, its proof, its column); the claim is counted once, in the class of the first word
of :data:`~dadp_lite.errata.status.CLAIM_ORDER` among its findings' words (a false
statement outweighs a typo in its proof; a typo outweighs looseness).
"""

from __future__ import annotations

from dadp_lite.errata.record import Claim

__all__ = ["CLAIMS"]

#: Every claim of the paper the book checks, in the paper's order.
CLAIMS: tuple[Claim, ...] = (
    Claim("adjacency", "Which datasets are neighbours",
          "the definition of differential privacy and the privacy proofs"),
    Claim("lemma-1", "Lemma 1, a sufficient condition for (ε, δ)-DP", "Lemma 1 and its proof"),
    Claim("dg-guarantee", "The discrete Gaussian's (ε, δ) guarantee", "Section 3"),
    Claim("dg-tables", "The discrete Gaussian rows of Tables 1-3",
          "Section 3 (the noise) and Tables 1-3 (δ and bias columns)"),
    Claim("cs-definition", "What (DP) cell suppression releases",
          "Definition 3 and Section 5.1 against Algorithms 1 and 2"),
    Claim("cs-privacy", "The privacy theorem of DP cell suppression, with its δ column",
          "Theorem 1, its proof, and Tables 1-3"),
    Claim("cs-bias", "The bias of DP cell suppression", "the display before Theorem 2"),
    Claim("cs-l1-bound", "The ℓ₁ bound on the bias of DP cell suppression", "Theorem 2"),
    Claim("sw-privacy", "The privacy theorem of DP swapping, with its δ column",
          "Theorem 3, its proof, and Tables 1-3"),
    Claim("sw-bias", "The bias of DP swapping and its ℓ₁ norm", "Proposition 1 and Theorem 4"),
    Claim("sw-errors-close", "Traditional and DP swapping have close errors",
          "Section 5.2 and Figure 2 (centre)"),
    Claim("ka-privacy", "The privacy theorem of DP k-anonymity, with its δ column",
          "Theorem 5, its proof, Section 5.3 and Tables 1-3"),
    Claim("ka-beta", "ε fixes the sampling probability β of DP k-anonymity",
          "Section 5.3, on Theorem 5"),
    Claim("ka-bias", "The bias theorem of DP k-anonymity", "Theorem 6"),
    Claim("ka-errors", "DP k-anonymity improves on k-anonymity at small ε",
          "Section 5.3 and Figure 2 (right)"),
    Claim("alpha-cs", "The α bound of DP cell suppression", "Theorem 7"),
    Claim("alpha-cs-tight", "The α bound of DP cell suppression is tight at xₙ = k/2",
          "a remark in the proof of Theorem 7"),
    Claim("alpha-sw", "The α bound of DP swapping", "Theorem 8"),
    Claim("alpha-laplace", "The α bound of the Laplace mechanism", "Theorem 9"),
    Claim("comparison", "The α bound of Laplace is below those of DP cell suppression and "
          "DP swapping", "Theorem 10"),
    Claim("comparison-reading", "Theorem 10 proves Laplace fairer",
          "the sentence that introduces Theorem 10"),
    Claim("tables-bias", "The bias columns of Tables 1-3",
          "Tables 1-3 (Laplace, DP suppression and DP swapping)"),
    Claim("tables-alpha-laplace", "The Laplace α column of Tables 1-3", "Tables 1-3"),
    Claim("tables-alpha-cs", "The DP cell suppression α column of Tables 1-3", "Tables 1-3"),
    Claim("tables-alpha-sw", "The DP swapping α column of Tables 1-3", "Tables 1-3"),
    Claim("tables-ka", "The DP k-anonymity bias and α columns of Tables 1-3", "Tables 1-3"),
    Claim("release-ranking", "Laplace and the discrete Gaussian release with less bias and α",
          "Section 7, Data release, and the conclusion"),
    Claim("classification", "Laplace and the discrete Gaussian train much better classifiers",
          "Section 7, Classification, and Figure 4"),
    Claim("traditional-leak", "The traditional methods give no privacy guarantee",
          "Sections 3 and 5 and the appendix"),
)  # fmt: skip
