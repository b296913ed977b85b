"""The hand-written expert's compiled model: what the player to move sees (views), each
unseen card's chances (card model), the race to each yaku, and the choices built on it."""
