"""Notifications without a face: the notice, what is watched, the rules that make one, the desktop channel."""
