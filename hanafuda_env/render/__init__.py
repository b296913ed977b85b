"""Rendering: text boards, the card art and the board image."""
