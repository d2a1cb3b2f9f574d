"""The names the expression evaluator knows by themselves: Python's builtins it models, torch's
dtype attributes, the tensor methods behind Python's binary operators, and the tensor attributes
that are shape rules (`x.T`). Tables only: evaluator.py reads them."""
import ast

BUILTINS = {"len", "range", "int", "float", "bool", "str", "max", "min", "abs", "sum", "isinstance", "issubclass", "zip",
            "enumerate", "list", "tuple", "dict", "print", "super", "getattr", "hasattr", "setattr", "round",
            "reversed", "sorted", "filter", "any", "all", "type", "iter", "next", "map", "divmod", "pow", "id", "repr",
            "ValueError", "RuntimeError", "TypeError", "AssertionError", "NotImplementedError", "Exception",
            "KeyError", "IndexError", "object", "property", "staticmethod", "classmethod", "set", "frozenset",
            "callable", "format", "open", "vars", "hash", "slice", "dir"}
DTYPES = {"float": "float32", "float32": "float32", "float16": "float16", "half": "float16", "float64": "float64",
          "double": "float64", "bfloat16": "bfloat16", "long": "int64", "int64": "int64", "int": "int32",
          "int32": "int32", "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool",
          "complex64": "complex64"}
BINOP_METHODS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
                 ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.BitAnd: "and", ast.BitOr: "or",
                 ast.BitXor: "xor"}
TENSOR_ATTR_RULES = {"T": "Tensor.T", "mT": "Tensor.mT", "H": "Tensor.H", "mH": "Tensor.mH"}
