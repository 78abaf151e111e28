"""The course kit: student notebooks, instructor notebooks and autograder bundles built
from the chapters' exercises with otter-grader, and local batch grading of submissions.

- ``questions``: a chapter's exercises joined with its sidecar ``course/<slug>.yml``
- ``markdown``: MyST exercise text -> Markdown that plain Jupyter renders
- ``kit``: ``dadp-book course``: otter master notebooks -> ``otter assign`` -> the kit folder
- ``grade``: ``dadp-book grade``: a pool of grading processes, time limits, ``scores.csv``
- ``worker``: one grading process (otter's local grading, the book's kernels)
"""

from dadp_book.course.grade import grade_submissions
from dadp_book.course.kit import build_kit
from dadp_book.course.questions import load_chapter

__all__ = ["build_kit", "grade_submissions", "load_chapter"]
