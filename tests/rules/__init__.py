"""Cards, rule sets, yaku scoring and the rule book's golden cases (RULES.md)."""
