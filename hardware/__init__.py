"""The table unit's I/O: frame sources (Pi camera, webcam, video, folder, simulated), buttons, service loop."""
