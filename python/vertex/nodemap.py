"""``{node: value}`` results of the networkx backend without building a dict.

networkx returns per-node results as dicts. Building one costs about as much
as the algorithm itself once the engines are fast: 1.2 ms of a 1.7 ms BFS on
a 65,536-vertex Kronecker graph, 80 ms of a 117 ms PageRank on the 1000²
grid (a million entries). A :class:`NodeMap` keeps the engine's numpy array
and answers lookups, ``len``, iteration, ``items()`` and ``==`` from it, as
graphblas-algorithms's ``NodeMap`` does for its networkx backend.

It behaves as a dict wherever Python asks for a mapping: ``m[node]``,
``node in m``, ``m.get``, ``m.items()``, ``sorted(m, key=m.get)``,
``dict(m)``, ``m == {...}``, ``pickle`` (as a plain dict). The first write
(``m[k] = v``, ``del m[k]``, ``m.update(...)``, ``m.pop``) turns it into an
ordinary dict inside, so it can be edited like networkx's result. It is not
a ``dict`` subclass: ``isinstance(m, dict)`` is false and ``json.dumps(m)``
needs ``dict(m)``. ``nx.config.backends.vertex.lazy_results = False``
returns plain dicts instead.
"""

from collections.abc import ItemsView, KeysView, MutableMapping, ValuesView

import numpy as np


class NodeMap(MutableMapping):
    """``{label: values[i]}`` for the vertices ``i`` of ``graph`` kept by
    ``present`` (a boolean mask; ``None``: every vertex), iterated in the
    order ``order()`` gives (vertex ids; ``None``: vertex order, which is
    networkx's node order)."""

    __slots__ = ("_graph", "_values", "_present", "_order", "_ids", "_len", "_dict")

    def __init__(self, graph, values, present=None, order=None):
        self._graph = graph
        self._values = values
        self._present = present
        self._order = order
        self._ids = None
        self._len = None
        self._dict = None

    # -------------------------------------------------------- reading

    def _id(self, key):
        i = self._graph.vertex_id(key)  # KeyError if not a node
        if self._present is not None and not self._present[i]:
            raise KeyError(key)
        return i

    def _vertex_ids(self):
        """The kept vertex ids in iteration order (computed once)."""
        if self._ids is None:
            if self._order is not None:
                self._ids = self._order()
            elif self._present is not None:
                self._ids = np.flatnonzero(self._present)
            else:
                self._ids = np.arange(len(self._values))
        return self._ids

    def _keys(self):
        return self._graph.labels(self._vertex_ids())

    def _vals(self):
        return self._values[self._vertex_ids()].tolist()

    def __getitem__(self, key):
        if self._dict is not None:
            return self._dict[key]
        return self._values[self._id(key)].item()

    def __contains__(self, key):
        if self._dict is not None:
            return key in self._dict
        try:
            self._id(key)
        except (KeyError, TypeError):
            return False
        return True

    def __len__(self):
        if self._dict is not None:
            return len(self._dict)
        if self._len is None:
            p = self._present
            self._len = len(self._values) if p is None else int(np.count_nonzero(p))
        return self._len

    def __iter__(self):
        if self._dict is not None:
            return iter(self._dict)
        return iter(self._keys())

    def keys(self):
        return self._dict.keys() if self._dict is not None else _Keys(self)

    def values(self):
        return self._dict.values() if self._dict is not None else _Values(self)

    def items(self):
        return self._dict.items() if self._dict is not None else _Items(self)

    def to_dict(self):
        """The plain dict networkx itself would have returned."""
        if self._dict is not None:
            return dict(self._dict)
        return dict(zip(self._keys(), self._vals()))

    def copy(self):
        return self.to_dict()

    def __eq__(self, other):
        if isinstance(other, NodeMap):
            other = other.to_dict()
        return self.to_dict() == other if isinstance(other, (dict, MutableMapping)) else NotImplemented

    __hash__ = None

    def __repr__(self):
        return repr(self.to_dict())

    def __reduce__(self):
        return (dict, (self.to_dict(),))

    # -------------------------------------------------------- writing

    def _writable(self):
        if self._dict is None:
            self._dict = self.to_dict()
            self._values = self._present = self._order = self._ids = None
        return self._dict

    def __setitem__(self, key, value):
        self._writable()[key] = value

    def __delitem__(self, key):
        del self._writable()[key]


class _Keys(KeysView):
    __slots__ = ()

    def __iter__(self):
        return iter(self._mapping._keys())


class _Values(ValuesView):
    __slots__ = ()

    def __iter__(self):
        return iter(self._mapping._vals())


class _Items(ItemsView):
    __slots__ = ()

    def __iter__(self):
        m = self._mapping
        return zip(m._keys(), m._vals())
