"""Flask application: dashboard, clerk console, hall display, JSON API, live push."""
