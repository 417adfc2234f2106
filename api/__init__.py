"""The HTTP face of Tanteo and its command line.

Importing ``api`` loads nothing: the app factory lives in :mod:`api.app` (Flask), the
service in :mod:`api.service` (Flask-free, shared by the API and the CLI).
"""
