"""The course kit: student notebooks, instructor notebooks and autograder bundles built
from the chapters' exercises with otter-grader, and local batch grading of submissions.

- ``questions``: a chapter's exercises joined with its sidecar ``course/<slug>.yml``
- ``markdown``: MyST exercise text -> Markdown that plain Jupyter renders
- ``kit``: ``dadp-book course``: otter master notebooks -> ``otter assign`` -> the kit folder
- ``grade``: ``dadp-book grade``: every hand-in, sandboxed runs, scores, gradebook, feedback
- ``sandbox``, ``runner``: where and how a notebook runs; ``evaluate``: the verdicts
"""

from dadp_book.course.grade import grade_submissions
from dadp_book.course.kit import build_kit
from dadp_book.course.questions import load_chapter

__all__ = ["build_kit", "grade_submissions", "load_chapter"]
