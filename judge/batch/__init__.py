"""Instructor batch grading: a class's submissions in; grades, feedback, similarity and a class report out."""
