"""A stand-in for msgpack where its compiled wheel is missing (the GPU machine's Python): DeepSpeed imports it for its
pipeline engine's object messages (runtime/pipe/p2p.py), which no point of this harness sends."""


def packb(*_args, **_kwargs):
    raise NotImplementedError("msgpack is not installed: the truth harness's stand-in sends no pipeline messages")


unpackb = packb
