"""Board/tray geometry and die appearance for one table; pure functions plus a versioned file format."""
