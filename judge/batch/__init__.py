"""Instructor batch grading (class in; grades, feedback, similarity, reports out); imports service, queue and below."""
