"""TensorBoard plugin assets: a plugin's named text files, kept on the graph, that
``FileWriter.add_graph`` writes under ``<logdir>/plugins/<plugin_name>/``."""

import abc

from tideflow.framework import ops

# the collection naming the graph's plugins; each plugin's asset object sits in this prefix
# followed by its plugin name (TF's keys)
_PLUGIN_ASSET_PREFIX = "__tensorboard_plugin_asset__"


class PluginAsset(abc.ABC):
    """A plugin's assets: subclasses set ``plugin_name`` and return ``{file name: content}``
    from ``assets()``."""

    plugin_name = None

    @abc.abstractmethod
    def assets(self):
        """The asset files, ``{name: string content}``."""
        raise NotImplementedError()


def get_plugin_asset(plugin_asset_cls, graph=None):
    """The one ``plugin_asset_cls`` instance of ``graph`` (default graph), made on first use."""
    graph = graph if graph is not None else ops.get_default_graph()
    if not plugin_asset_cls.plugin_name:
        raise ValueError(f"Class {plugin_asset_cls.__name__} has no plugin_name")
    key = _PLUGIN_ASSET_PREFIX + plugin_asset_cls.plugin_name
    found = graph.get_collection(key)
    if found:
        if len(found) != 1:
            raise ValueError(f"Collection for {key} had {len(found)} items, expected 1")
        if not isinstance(found[0], plugin_asset_cls):
            raise ValueError(f"Plugin name collision between classes "
                             f"{plugin_asset_cls.__name__} and {type(found[0]).__name__}")
        return found[0]
    instance = plugin_asset_cls()
    graph.add_to_collection(key, instance)
    graph.add_to_collection(_PLUGIN_ASSET_PREFIX, plugin_asset_cls.plugin_name)
    return instance


def get_all_plugin_assets(graph=None):
    """Every plugin asset object of ``graph`` (default graph), in creation order."""
    graph = graph if graph is not None else ops.get_default_graph()
    out = []
    for name in graph.get_collection(_PLUGIN_ASSET_PREFIX):
        found = graph.get_collection(_PLUGIN_ASSET_PREFIX + name)
        if len(found) != 1:
            raise ValueError(f"Collection for {_PLUGIN_ASSET_PREFIX + name} had {len(found)} "
                             "items, expected 1")
        out.append(found[0])
    return out
