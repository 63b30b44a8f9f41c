"""cuTile's exception classes as the shim serves them (`cuda.tile.TileError`, ...; ct_module.py
names them cuda.tile's), apart so that capture.py can raise one without importing ct_module."""


class TileError(Exception):
    pass


class TileSyntaxError(TileError):
    pass


class TileTypeError(TileError):
    pass


class TileValueError(TileError):
    pass


class TileUnsupportedFeatureError(TileError):
    pass


class TileRecursionError(TileError):
    pass


class TileStaticAssertionError(TileError):
    """cuTile's: made from the assertion's message, "Static assertion failed[: message]", and its
    text ends with a newline (where cuTile's continues with the location)."""

    def __init__(self, message: str = ""):
        self.message = "Static assertion failed" + (": " + message if message else "")
        super().__init__(self.message)

    def __str__(self):
        return self.message + "\n"



class TileStaticEvalError(TileError):
    pass


class StaticException(TileStaticEvalError):
    pass


class TileInternalError(TileError):
    pass


class TileCompilerError(TileInternalError):
    pass


class TileCompilerExecutionError(TileCompilerError):
    pass


class TileCompilerTimeoutError(TileCompilerError):
    pass
