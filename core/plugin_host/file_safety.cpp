// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/file_safety.hpp"

#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>

namespace ndsearch {

std::string unsafe_reason(const std::filesystem::path& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return "";
  const bool folder = S_ISDIR(info.st_mode);
  const char* what = folder ? "folder" : "file";
  if (info.st_uid != 0 && info.st_uid != geteuid()) {
    return fmt::format(
        "the plugin {} {} is owned by user id {}, neither root nor you (user id {}); "
        "a plugin runs with your rights, so only load plugins you or root own "
        "(chown it, or move it to a folder of yours)",
        what, path.string(), info.st_uid, geteuid());
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return fmt::format(
        "the plugin {} {} is writable by {} (mode {:04o}); anyone who can write it "
        "could run code as you; fix it with `chmod go-w {}`",
        what, path.string(), (info.st_mode & S_IWOTH) ? "others" : "its group",
        info.st_mode & 07777, path.string());
  }
  return "";
}

}  // namespace ndsearch
