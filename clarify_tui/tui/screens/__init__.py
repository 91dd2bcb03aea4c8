"""Screens: task picker, play, help, and the action editor modal."""
