// SPDX-License-Identifier: Apache-2.0
// test_module_host.cpp: the services a module receives: log lines reach the
// logger plugin.<id>, options by key, statuses made and freed by the host.
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>

#include "core/plugin_host/module_host.hpp"
#include "core/support/status.hpp"

using namespace ndsearch;

TEST_CASE("A plugin's log lines go to the spdlog logger plugin.<id> at its threshold") {
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>("ndsearch", sink);
  logger->set_pattern("%n|%l|%v");
  logger->set_level(spdlog::level::warn);
  spdlog::set_default_logger(logger);

  ModuleHost module_host("acme.npu", std::make_shared<const PluginOptions>());
  const nds_host& host = *module_host.host();
  CHECK(host.log_threshold(host.context) == NDS_LOG_WARN);
  const char warning[] = "HBM figure taken from the 2024 data sheet";
  host.log(host.context, NDS_LOG_WARN, warning, std::strlen(warning));
  host.log(host.context, NDS_LOG_INFO, "not shown", 9);
  spdlog::set_default_logger(previous);

  CHECK(captured.str() == "plugin.acme.npu|warning|HBM figure taken from the 2024 data sheet\n");
}

TEST_CASE("Options reach the plugin by key and an unset key reads as NULL") {
  auto options = std::make_shared<PluginOptions>();
  (*options)["device-file"] = "/data/cluster.toml";
  ModuleHost module_host("toml-device", options);
  const nds_host& host = *module_host.host();
  nds_str set = host.get_option(host.context, "device-file");
  CHECK(std::string(set.data, set.size) == "/data/cluster.toml");
  nds_str unset = host.get_option(host.context, "no-such-option");
  CHECK(unset.data == nullptr);
  CHECK(unset.size == 0);
}

TEST_CASE("Statuses are made and released by the host and NDS_OK is NULL") {
  ModuleHost module_host("any", std::make_shared<const PluginOptions>());
  const nds_host& host = *module_host.host();
  CHECK(host.make_status(host.context, NDS_OK, "fine", 4) == nullptr);
  nds_status* status = host.make_status(host.context, NDS_NOT_FOUND, "no such key: hbm_gb", 19);
  REQUIRE(status != nullptr);
  CHECK(host.status_code(host.context, status) == NDS_NOT_FOUND);
  nds_str message = host.status_message(host.context, status);
  CHECK(std::string(message.data, message.size) == "no such key: hbm_gb");
  CHECK(message.data[message.size] == '\0');  // host-made strings are NUL-terminated
  host.release_status(host.context, status);
  host.release_status(host.context, nullptr);  // allowed, does nothing
  CHECK(host.status_code(host.context, nullptr) == NDS_OK);
  CHECK(host.get_service(host.context, "nds.host.anything/1") == nullptr);
  CHECK(host.abi_major == NDS_ABI_MAJOR);
  CHECK(host.struct_size == sizeof(nds_host));
}

TEST_CASE("Status codes print with the ABI's names") {
  CHECK(status_code_name(NDS_INFEASIBLE) == "NDS_INFEASIBLE");
  CHECK(status_code_name(12345) == "unknown status code");
}
