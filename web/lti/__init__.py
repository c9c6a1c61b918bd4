"""The web service as an LTI 1.3 Advantage tool (PyLTI1p3 adapted to FastAPI): launches, passback, course view."""
