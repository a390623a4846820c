"""Flask application: dashboard, clerk console, hall display, JSON API, live push.

The interface between the table service and the web layer (CONTRACT_PLACEHOLDER in the service brief) is
written out in docs/service-web-contract.md: code exactly to it.
"""
