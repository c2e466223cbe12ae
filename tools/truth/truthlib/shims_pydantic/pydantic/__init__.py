"""The part of pydantic 2's API that DeepSpeed's configuration classes use, for a Python whose pydantic_core wheel is
not at hand (the GPU machine's Python 3.12: the package index here holds pydantic_core for 3.11 only). It is put on
the path only when `import pydantic` fails (truthlib/zero.py import_deepspeed).

What it does as pydantic does for those classes (pydantic 2.13, lax mode): fields from the class annotations through
the bases, defaults (`Field(default | default_factory)`, validated too: DeepSpeed sets validate_default), aliases
with population by name, extra keys refused, `ge` / `gt` / `le` / `lt` bounds, lax coercion (a dict to a nested model,
a value to an Enum, stored as its value under use_enum_values, an integral float to int, 0 / 1 to bool), field
validators before and after, model validators before and after, validation on assignment, and `model_fields`,
`model_fields_set`. A config that pydantic would refuse raises ValueError here; anything it does not cover (unions of
models, constrained strings, serialisation) is left as given."""
import copy
import enum
import inspect
import typing

__version__ = "2.13.5-shim"

_MISSING = object()


class ValidationError(ValueError):
    pass


class FieldInfo:
    def __init__(self, default=_MISSING, *, default_factory=None, alias=None, json_schema_extra=None, ge=None, gt=None, le=None,
                 lt=None, deprecated=None, **_ignored):
        self.default, self.default_factory, self.alias = default, default_factory, alias
        self.json_schema_extra, self.deprecated = json_schema_extra, deprecated
        self.bounds = {"ge": ge, "gt": gt, "le": le, "lt": lt}
        self.annotation = None

    def get_default(self, call_default_factory=False):
        if self.default_factory is not None:
            return self.default_factory() if call_default_factory else None
        if self.default is _MISSING:
            return None
        # pydantic copies a default that is not hashable (a dict, a list) for each instance
        return copy.deepcopy(self.default) if isinstance(self.default, (dict, list, set)) else self.default

    def is_required(self):
        return self.default is _MISSING and self.default_factory is None


def Field(default=_MISSING, **kwargs):  # noqa: N802 - pydantic's name
    return FieldInfo(default, **kwargs)


def ConfigDict(**kwargs):  # noqa: N802
    return dict(kwargs)


class _Decorated:
    def __init__(self, fn, kind, fields=(), mode="after"):
        self.fn, self.kind, self.fields, self.mode = fn, kind, fields, mode


def _unwrap(fn):
    return fn.__func__ if isinstance(fn, (classmethod, staticmethod)) else fn


def field_validator(*fields, mode="after", **_ignored):
    return lambda fn: _Decorated(_unwrap(fn), "field", fields, mode)


def model_validator(*, mode):
    return lambda fn: _Decorated(_unwrap(fn), "model", (), mode)


def field_serializer(*_fields, **_ignored):
    return lambda fn: fn


PositiveInt = typing.Annotated[int, FieldInfo(gt=0)]


class ValidationInfo:
    def __init__(self, data, field_name):
        self.data, self.field_name = data, field_name


class _Meta(type):
    def __new__(mcs, name, bases, ns, **kw):
        validators = [v for b in bases for v in getattr(b, "__validators__", [])]
        for key, value in list(ns.items()):
            if isinstance(value, _Decorated):
                validators.append(value)
                ns[key] = value.fn
        cls = super().__new__(mcs, name, bases, ns, **kw)
        cls.__validators__ = validators
        fields = {}
        for base in reversed(cls.__mro__[1:]):
            fields.update(getattr(base, "model_fields", {}) or {})
        try:
            hints = typing.get_type_hints(cls, include_extras=True) if ns.get("__annotations__") else {}
        except (NameError, TypeError):
            hints = dict(ns.get("__annotations__", {}))
        for field_name in ns.get("__annotations__", {}):
            if field_name.startswith("_") or field_name == "model_config":
                continue
            default = ns.get(field_name, _MISSING)
            info = default if isinstance(default, FieldInfo) else FieldInfo(default)
            info.annotation = hints.get(field_name)
            fields[field_name] = info
            if field_name in ns:
                delattr(cls, field_name)
        cls.model_fields = fields
        config = {}
        for base in reversed(cls.__mro__):
            config.update(base.__dict__.get("model_config", {}) or {})
        cls.model_config = config
        return cls


def _is_model(tp):
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _coerce(tp, value, config, where):
    """Lax-mode validation of one value against an annotation."""
    if tp is None or tp is typing.Any:
        return value
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *meta = typing.get_args(tp)
        value = _coerce(base, value, config, where)
        for m in meta:
            if isinstance(m, FieldInfo):
                _check_bounds(m, value, where)
        return value
    if origin is typing.Union:
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in (a for a in args if a is not type(None)):
            try:
                return _coerce(arg, value, config, where)
            except ValueError as e:
                errors.append(str(e))
        raise ValidationError(f"{where}: {value!r} matches none of {tp}: {errors}")
    if origin is not None:  # Dict[...], List[...], Literal[...]: kept as given
        return value
    if _is_model(tp):
        if isinstance(value, tp):
            return value
        if isinstance(value, dict):
            return tp(**value)
        raise ValidationError(f"{where}: expected {tp.__name__}, got {value!r}")
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        member = value if isinstance(value, tp) else tp(value)
        return member.value if config.get("use_enum_values") else member
    if tp is bool:
        if isinstance(value, bool):
            return value
        if value in (0, 1) and not isinstance(value, float):
            return bool(value)
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no", "on", "off"):
            return value.lower() in ("true", "1", "yes", "on")
        raise ValidationError(f"{where}: {value!r} is not a bool")
    if tp is int:
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                pass
        raise ValidationError(f"{where}: {value!r} is not an integer")
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            return float(value)
        raise ValidationError(f"{where}: {value!r} is not a number")
    if tp is str:
        if isinstance(value, str):
            return value
        raise ValidationError(f"{where}: {value!r} is not a string")
    return value


def _check_bounds(info, value, where):
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return
    b = info.bounds
    ok = ((b["ge"] is None or value >= b["ge"]) and (b["gt"] is None or value > b["gt"])
          and (b["le"] is None or value <= b["le"]) and (b["lt"] is None or value < b["lt"]))
    if not ok:
        raise ValidationError(f"{where}: {value!r} outside {({k: v for k, v in b.items() if v is not None})}")


def _call(fn, cls, value, info):
    params = len(inspect.signature(fn).parameters)
    return fn(cls, value, info) if params >= 3 else fn(cls, value)


class BaseModel(metaclass=_Meta):
    model_config = {}

    def __init__(self, **data):
        cls = type(self)
        for v in cls.__validators__:
            if v.kind == "model" and v.mode == "before":
                data = v.fn(cls, data)
        data = dict(data or {})
        values, given = {}, set()
        for field_name, info in cls.model_fields.items():
            key = info.alias if info.alias and info.alias in data else field_name
            if key in data:
                raw = data.pop(key)
                given.add(field_name)
            elif info.is_required():
                raise ValidationError(f"{cls.__name__}.{field_name}: field required")
            else:
                raw = info.get_default(call_default_factory=True)
            values[field_name] = self._validate_field(field_name, raw, values)
        if data and cls.model_config.get("extra") == "forbid":
            raise ValidationError(f"{cls.__name__}: extra fields not permitted: {sorted(data)}")
        object.__setattr__(self, "__dict__", values)
        object.__setattr__(self, "__pydantic_fields_set__", given)
        for v in cls.__validators__:
            if v.kind == "model" and v.mode == "after":
                result = v.fn(self)
                if result is not None and result is not self:
                    raise ValidationError(f"{cls.__name__}: an after validator returned another object")

    def _validate_field(self, field_name, value, data):
        cls = type(self)
        info, where = cls.model_fields[field_name], f"{cls.__name__}.{field_name}"
        validators = [v for v in cls.__validators__ if v.kind == "field" and field_name in v.fields]
        for v in validators:
            if v.mode in ("before", "wrap", "plain"):
                value = _call(v.fn, cls, value, ValidationInfo(data, field_name))
        if value is not None or not self._allows_none(info):
            value = _coerce(info.annotation, value, cls.model_config, where)
        _check_bounds(info, value, where)
        for v in validators:
            if v.mode == "after":
                value = _call(v.fn, cls, value, ValidationInfo(data, field_name))
        return value

    @staticmethod
    def _allows_none(info):
        return info.annotation is None or type(None) in typing.get_args(info.annotation)

    @property
    def model_fields_set(self):
        return self.__pydantic_fields_set__

    def __setattr__(self, name, value):
        cls = type(self)
        if name in cls.model_fields:
            if cls.model_config.get("validate_assignment"):
                value = self._validate_field(name, value, dict(self.__dict__))
            self.__dict__[name] = value
            self.__pydantic_fields_set__.add(name)
            if cls.model_config.get("validate_assignment") and not self.__dict__.get("__pydantic_validating__"):
                # pydantic runs the model's after validators on an assignment too; one level (they assign themselves)
                self.__dict__["__pydantic_validating__"] = True
                try:
                    for v in cls.__validators__:
                        if v.kind == "model" and v.mode == "after":
                            v.fn(self)
                finally:
                    del self.__dict__["__pydantic_validating__"]
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self.__dict__:
            del self.__dict__[name]
            self.__pydantic_fields_set__.discard(name)
            return
        object.__delattr__(self, name)

    def __getattr__(self, name):
        info = type(self).model_fields.get(name)
        if info is not None:  # a field deleted (DeepSpeed removes deprecated ones): pydantic raises too
            raise AttributeError(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _field_values(self):
        return {k: v for k, v in self.__dict__.items() if not k.startswith("__pydantic")}

    def model_dump(self, **_ignored):
        return {k: (v.model_dump() if isinstance(v, BaseModel) else v) for k, v in self._field_values().items()}

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._field_values().items())})"

    def __eq__(self, other):
        return type(self) is type(other) and self._field_values() == other._field_values()
