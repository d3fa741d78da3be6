//===- ProfilePanel.h - Runs of the model and one run's dispatches -*- C++ -*-===//
//
// Left: the device picker (the CPU and each GPU the listed runs were made on) and the runs of
// the current model in the profile DB on that device (Store::listRuns, newest first).
// Right: the selected run (Store::loadRun): its whole-repetition summary, a per-dispatch table
// sortable by id, name, cluster, loc, backend, calls, median, IQR and share
// (ImGuiTableFlags_Sortable; the order is cached per run and sort spec) whose cluster and loc
// cells link to the graph panel, the per-cluster timings (the run's kernels grouped by cluster:
// summed medians, kernel count, kind and backend; clusters::RunClusters), the kernel fallbacks
// the run recorded, for a GPU run the GPU kernel table (gpu::KernelTable: launch shape,
// registers, shared memory, durations, achieved rates), and the timeline of one repetition
// (TimelineView): the dispatches on the host clock, or a GPU run's CUDA streams.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_PROFILEPANEL_H
#define LOUPE_VISUALIZER_PANELS_PROFILEPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/clusters/RunClusters.h"
#include "loupe/visualizer/gpu/KernelTable.h"
#include "loupe/visualizer/timeline/TimelineView.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loupe::visualizer {

class ProfilePanel {
public:
  /// Columns of the dispatch table, in display order.
  enum Column { ColId, ColName, ColCluster, ColLoc, ColBackend, ColCalls, ColMedian, ColIqr,
                ColShare, ColCount };

  void draw(ViewModel &vm, Actions &actions);

  /// Sorts the dispatch table (what a click on a header does).
  void setSort(Column column, bool ascending);
  Column sortColumn() const { return sortColumn_; }
  bool sortAscending() const { return sortAscending_; }
  /// Row indices (into ProfileView::rows) in display order.
  const std::vector<int> &sortedRows(const ViewModel &vm);
  /// Screen rectangle of a column header in the last frame (tests click on it).
  void headerRect(Column column, float *minX, float *minY, float *maxX, float *maxY) const;
  /// The run's kernels by cluster, joined with the compile shown; null without a run.
  const clusters::RunClusters *runClusters(const ViewModel &vm) { return clusters_.get(vm); }
  /// Indices into RunClusters::clusters in the order of the clusters table (summed median,
  /// highest first); cached per join.
  const std::vector<int> &clusterOrder(const ViewModel &vm);
  /// Screen rectangles of the last frame's links: "kernel:<id>" the cluster cell of kernel
  /// `id`, "cluster:<id>" the id cell of run cluster `id` in the clusters table. Zero-size
  /// when not drawn.
  ScreenRect linkRect(const std::string &key) const;

  int repetition() const { return rep_; }
  void setRepetition(int rep) { rep_ = rep; }
  TimelineView &timeline() { return timeline_; }

  // --- Devices -----------------------------------------------------------------------------
  /// The device picker's entries: the devices of the runs list (devicesOf), cached per list.
  const std::vector<DeviceRuns> &devices(const ViewModel &vm);
  /// Indices into RunListView::runs of the runs listed: those on the picked device.
  const std::vector<int> &listedRuns(const ViewModel &vm);
  /// What picking `device` (null: all devices) does: filters the runs list and, when the run
  /// shown was made elsewhere, loads the newest run on that device.
  void pickDevice(ViewModel &vm, Actions &actions, const Device *device);

  // --- GPU runs ----------------------------------------------------------------------------
  /// Sorts the GPU kernel table (what a click on its header does); by default by total time,
  /// highest first.
  void setGpuSort(gpu::KernelColumn column, bool ascending);
  /// Row indices (into GpuActivity::rows) of the GPU kernel table in display order.
  const std::vector<int> &gpuRows(const ViewModel &vm);
  /// Headers of the GPU kernel table as the last frame drew them (empty when not drawn).
  const std::vector<std::string> &gpuHeaders() const { return gpuHeaders_; }
  /// Whether the timeline shows the GPU streams (else the dispatches on the host clock): the
  /// default for a run with GPU activity.
  bool showsStreams() const { return streams_; }
  void setShowsStreams(bool streams) { streams_ = streams; timeline_.fit(); }
  /// The repetition the stream timeline shows: an index into GpuActivity::reps.
  int gpuRepetition() const { return gpuRep_; }
  void setGpuRepetition(int index) { gpuRep_ = index; }

private:
  void drawDevicePicker(ViewModel &vm, Actions &actions);
  void drawRuns(ViewModel &vm, Actions &actions);
  void drawGpuKernels(const ViewModel &vm, float height);
  /// The repetition slider and the timeline (host dispatches or GPU streams).
  void drawTimeline(const ViewModel &vm);
  void drawDispatches(ViewModel &vm, float height);
  void drawClusters(ViewModel &vm, float height);
  void drawFallbacks(const ViewModel &vm);
  /// A link to run cluster `cluster` (an index into RunClusters::clusters): shows the compile
  /// cluster with the same source ops in the graph panel, or says why there is none.
  void clusterLink(ViewModel &vm, const clusters::RunClusters &run, int cluster,
                   const std::string &key);
  /// The source ops of a kernel, each a menu: show it in the graph or in the IR.
  void locLink(ViewModel &vm, const DispatchRow &row);

  Column sortColumn_ = ColMedian;
  bool sortAscending_ = false;
  bool sortDirty_ = true;
  bool pushSortToTable_ = false;
  const ProfileView *sortedFor_ = nullptr;
  std::vector<int> order_;
  float headers_[ColCount][4] = {};
  int rep_ = 0;
  int64_t timelineFor_ = -1;
  TimelineView timeline_;
  clusters::RunClustersCache clusters_;
  std::vector<int> clusterOrder_;
  uint64_t clusterOrderFor_ = 0; ///< clusters_.generation() clusterOrder_ is of; 0: none.
  std::map<std::string, ScreenRect> rects_;
  // Device picker.
  const RunListView *devicesFor_ = nullptr;
  std::vector<DeviceRuns> devices_;
  const RunListView *listedFor_ = nullptr;
  std::optional<Device> listedDevice_;
  std::vector<int> listed_;
  // GPU kernel table and stream timeline.
  gpu::KernelColumn gpuSortColumn_ = gpu::KernelColumn::Total;
  bool gpuSortAscending_ = false;
  bool gpuSortDirty_ = true;
  bool gpuPushSort_ = false;
  const gpu::GpuActivity *gpuSortedFor_ = nullptr;
  std::vector<int> gpuOrder_;
  std::vector<std::string> gpuHeaders_;
  bool streams_ = true;
  int gpuRep_ = 0;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_PROFILEPANEL_H
