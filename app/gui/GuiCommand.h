//===- GuiCommand.h - loupe gui: the desktop workbench ------------*- C++ -*-===//
#ifndef LOUPE_APP_GUI_GUICOMMAND_H
#define LOUPE_APP_GUI_GUICOMMAND_H

namespace loupe::app {

/// `loupe [gui] [--session S] [--db DB] [MODEL] [--screenshot PNG --frames N [--panel P]
/// [--pass NAME|INDEX] [--run] [--search TEXT] [--size WxH]]`. Opens the workbench window
/// (GLFW + OpenGL 3); with --screenshot, renders until the jobs are done plus N frames, writes
/// the back buffer as PNG and exits. Returns the process exit code (2: bad usage or no display,
/// 3: the screenshot could not be written).
int guiCommand(int argc, char **argv, int first);

} // namespace loupe::app

#endif // LOUPE_APP_GUI_GUICOMMAND_H
