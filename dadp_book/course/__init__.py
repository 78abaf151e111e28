"""The course kit (``dadp-book course``) and local batch grading (``dadp-book grade``) with
otter-grader; ARCHITECTURE.md ("The course kit") maps its modules.
"""

from dadp_book.course.grade import grade_submissions
from dadp_book.course.kit import build_kit
from dadp_book.course.questions import load_chapter

__all__ = ["build_kit", "grade_submissions", "load_chapter"]
