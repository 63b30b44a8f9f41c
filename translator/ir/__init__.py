"""The translator's IR: dataclass nodes with source spans, built from Lark's parse tree."""
