//===- GraphPanel.h - The op graph coloured by cluster and backend -*- C++ -*-===//
//
// The ops of the last compile (after its graph phase) laid out by Graphviz `dot`, each coloured
// by the compiler cluster it is drawn in and labelled with its op and backend (GraphView).
// A toolbar fits, zooms, switches the colouring and finds an op by name; the pane on the right
// (GraphDetails) shows the selection: an op, the cluster explainer (why these ops share a
// kernel, its kernels and their medians, the merges refused around it) and a kernel.
//
// Layouts run on the panel's own worker thread (graph::layoutGraph) and are cached by graph
// structure (op labels and edges), so a recompile that only changes backends reuses its layout.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_GRAPHPANEL_H
#define LOUPE_VISUALIZER_PANELS_GRAPHPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/Worker.h"
#include "loupe/visualizer/graph/GraphLayout.h"
#include "loupe/visualizer/graph/GraphView.h"
#include "loupe/visualizer/panels/GraphDetails.h"

#include <list>
#include <memory>
#include <string>

namespace loupe::visualizer {

class GraphPanel {
public:
  void draw(ViewModel &vm, Actions &actions);
  /// Applies finished layouts; call at the start of a frame.
  void beginFrame() { worker_.drain(); }
  bool busy() const { return worker_.busy(); }
  bool waitIdle(double timeoutSeconds) { return worker_.waitIdle(timeoutSeconds); }
  void setWake(std::function<void()> wake) { worker_.setWake(std::move(wake)); }

  /// The layout of `model` when computed, else null (a job is posted the first time a graph
  /// structure is seen).
  std::shared_ptr<const graph::GraphLayout>
  request(const std::shared_ptr<const graph::GraphModel> &model);
  /// The layout's input for `model`: box sizes from the current ImGui font (UI thread); with
  /// `scopes`, ops grouped by their name scope (groupByScope).
  static graph::LayoutInput layoutInput(const graph::GraphModel &model, bool scopes = true);
  /// Groups the ops of `input` by name scope ("/layer1/layer1.0/conv1/Conv"), at the shallowest
  /// depth giving at least 4 scopes; models without scoped names get no groups.
  static void groupByScope(const graph::GraphModel &model, graph::LayoutInput &input);
  /// Layouts computed so far (jobs posted), for tests of the cache.
  int layoutsComputed() const { return computed_; }

  graph::GraphView &view() { return view_; }
  GraphDetails &details() { return details_; }
  /// Finds an op by name (case-insensitive): of the ops named `text`, the one in a
  /// library-capable dispatch, else the first; else the first whose name or op contains it.
  /// Selects it and its cluster and centres it; false when none matches.
  bool find(ViewModel &vm, const std::string &text);
  /// The graph the panel draws for `vm`'s compile: its op graph, or with "collapse" one node per
  /// cluster (graph::collapseClusters). Navigation::selectedNode indexes this graph.
  const std::shared_ptr<const graph::GraphModel> &shown(const ViewModel &vm);
  void setCollapse(bool collapse) { collapse_ = collapse; }

private:
  struct Entry {
    uint64_t key = 0;
    std::shared_ptr<const graph::GraphLayout> layout; ///< null while computing
  };
  static uint64_t keyOf(const graph::LayoutInput &input);

  Worker worker_{"loupe-layout"};
  std::list<Entry> cache_; ///< Most recently used first; a few entries.
  std::shared_ptr<const graph::GraphModel> keyedModel_; ///< The model modelKey_ is of.
  bool groupScopes_ = true;  ///< The toolbar's "scopes" switch.
  bool collapse_ = false;    ///< The toolbar's "collapse" switch: one box per cluster.
  /// The collapsed graph of collapsedFrom_ (built when the switch is first on for a compile).
  std::shared_ptr<const graph::GraphModel> collapsedFrom_, collapsed_;
  bool keyedScopes_ = true;  ///< groupScopes_ when modelKey_ was computed.
  uint64_t modelKey_ = 0;
  const graph::GraphLayout *shownLayout_ = nullptr;
  graph::GraphView view_;
  GraphDetails details_;
  std::string findText_;
  int computed_ = 0;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_GRAPHPANEL_H
