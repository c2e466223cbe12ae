"""hjson for DeepSpeed's import only: the truth harness passes DeepSpeed its config as a dict, never an hjson file."""
from json import JSONDecodeError, dump, dumps, load, loads  # noqa: F401
