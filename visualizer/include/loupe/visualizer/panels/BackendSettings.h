//===- BackendSettings.h - The session's backend order and fusion switch -*- C++ -*-===//
//
// A widget shared by the Run and Dispatches panels: the session-wide ordered backend preference
// (`pipeline.backends`; empty: the highest plevel wins) and `pipeline.fusion`. Edits change the
// session (what runs use and Save writes); the next compile applies them.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_BACKENDSETTINGS_H
#define LOUPE_VISUALIZER_PANELS_BACKENDSETTINGS_H

#include "loupe/sessions/Session.h"

namespace loupe::visualizer {

/// Draws the order (move up, remove, add a registered backend enabled on the target's device)
/// and the fusion checkbox. Returns true when `pipeline` changed.
bool drawBackendSettings(sessions::PipelineSettings &pipeline);

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_BACKENDSETTINGS_H
