#pragma once

// The shard map view for screen readers: lanes and their tiles as an accessible tree.

namespace shardmap::widgets {

// Screen readers see the shard map view as a tree: one item per lane (a shard, named "Shard s1 on
// node n0 (active)" with its fill), whose children are its space tiles ("Space acme: 120 docs,
// 1.5 MiB"), with their places on screen, selection and the current tile as focus. The texts
// are the model's tooltips, so they are translated with it. Installed once, by the view.
void installShardMapAccessibility();

} // namespace shardmap::widgets
