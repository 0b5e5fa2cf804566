"""autograd's container constructors and isinstance: tangent_ad
differentiates Python's own tuples, lists and dicts, so these are
Python's."""
import builtins

list = builtins.list
tuple = builtins.tuple
dict = builtins.dict
isinstance = builtins.isinstance
SequenceBox = DictBox = type(None)
