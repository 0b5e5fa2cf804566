"""What the passes share: the function being transformed and facts about it.

A `Context` travels down the pipeline beside the tree. Each pass may read
what earlier passes recorded and add its own results; none changes what an
earlier pass recorded.
"""
from dataclasses import dataclass, field


@dataclass
class Context:
    """The transformation request and the facts gathered about it."""

    func: object
    wrt: tuple                 # parameter names, in the caller's order
    mode: str = "reverse"
    optimized: bool = True
    preserve_result: bool = False
    verbose: int = 0
    info: object = None        # frontend.source.SourceInfo
    namespace: dict = field(default_factory=dict)  # name -> object, for loading
    resolved: dict = field(default_factory=dict)   # gast node -> Python object
    origin: dict = field(default_factory=dict)     # core statement -> user statement
    facts: dict = field(default_factory=dict)      # analysis name -> result
    namer: object = None       # naming.Namer shared by every pass
    kind: str = "gradient"     # "gradient": df(args, bresult); "pullback": (y, back)
    calls: dict = field(default_factory=dict)  # (function, wrt, statics) -> pullback name
    unit: dict = field(default_factory=dict)   # facts the functions of one unit share
    static_args: dict = field(default_factory=dict)  # parameter -> function it is bound to
    callee: bool = False       # called by another function being transformed
    rewrites: int = 0          # changes the optimization passes made, for the fixed point

    def count_rewrites(self, number):
        """Record that an optimization pass changed the tree `number` times."""
        self.rewrites += number

    def static_key(self):
        """The static arguments as they appear in ``calls`` keys."""
        return tuple(sorted(self.static_args.items(), key=lambda item: item[0]))

    def where(self, node):
        """Location keywords for an error about `node` of the user's tree."""
        return self.info.where(node) if self.info is not None else {}
