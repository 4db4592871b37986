// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/terminal_width.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include "hosts/cli/setting_flags.hpp"

namespace ndsearch::cli {

size_t stdout_width() {
  winsize size{};
  if (isatty(STDOUT_FILENO) == 0 || ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 ||
      size.ws_col == 0)
    return TextSettings{}.width;
  return size.ws_col;
}

TextSettings cli_text() {
  return {stdout_width(), with_flags};
}

}  // namespace ndsearch::cli
