// SPDX-License-Identifier: Apache-2.0
// parser.hpp: write a "nds.parser/1" plugin in C++: typed builder calls whose
// refusals travel as exceptions and go back to the host as its own statuses.
#ifndef NDSEARCH_SDK_PARSER_HPP_INCLUDED
#define NDSEARCH_SDK_PARSER_HPP_INCLUDED

#include <ndsearch/nds_parser.h>
#include <ndsearch/sdk/config_file.hpp>  // read_config_file, shown, invalid_utf8_offset, LimitError
#include <ndsearch/sdk/plugin.hpp>

#include <cstddef>  // offsetof
#include <new>      // std::bad_alloc

#include <optional>
#include <string>       // provenance text
#include <string_view>  // values
#include <vector>       // lists

namespace ndsearch::sdk {

// Where a value came from: a file and field (and line), or a trainer's default.
struct Where {
  std::string file;
  int64_t line = NDS_UNKNOWN;
  std::string field;
  std::string default_of;  // non-empty: "default:<default_of>"

  nds_provenance c() const noexcept {
    nds_provenance p{};
    p.struct_size = sizeof(nds_provenance);
    p.file = file.empty() ? nullptr : file.c_str();
    p.line = line;
    p.field = field.c_str();
    p.default_of = default_of.empty() ? nullptr : default_of.c_str();
    return p;
  }
};

// Typed view of the host's builder; every refusal throws HostStatus.
class Builder {
 public:
  explicit Builder(const nds_builder_v1& b) noexcept : b_(b) {}

  void begin_block(const char* kind, int64_t layers, const Where& w) {
    const nds_provenance p = w.c();
    check(b_.begin_block(b_.builder, kind, layers, &p));
  }
  void end_block() { check(b_.end_block(b_.builder)); }
  void begin_submodel(const char* name, const Where& w) {
    const nds_provenance p = w.c();
    check(b_.begin_submodel(b_.builder, name, &p));
  }
  void end_submodel() { check(b_.end_submodel(b_.builder)); }
  void set(const char* key, int64_t value, const Where& w) {
    const nds_provenance p = w.c();
    check(b_.set_int(b_.builder, key, value, &p));
  }
  void set_real(const char* key, double value, const Where& w) {
    const nds_provenance p = w.c();
    check(b_.set_real(b_.builder, key, value, &p));
  }
  void set_string(const char* key, std::string_view value, const Where& w) {
    check_utf8(value, w);
    const nds_provenance p = w.c();
    check(b_.set_string(b_.builder, key, value.data(), value.size(), &p));
  }
  void set_list(const char* key, const std::vector<int64_t>& values, const Where& w) {
    const nds_provenance p = w.c();
    check(b_.set_int_list(b_.builder, key, values.data(), values.size(), &p));
  }
  void set_unknown(const char* key, const std::string& why, const Where& w) {
    check_utf8(why, w);
    const nds_provenance p = w.c();
    check(b_.set_unknown(b_.builder, key, why.c_str(), &p));
  }
  void unknown_field(const Where& w) {
    check_utf8("", w);
    const nds_provenance p = w.c();
    check(b_.unknown_field(b_.builder, &p));
  }

 private:
  static void check(nds_status* status) {
    if (status != nullptr) throw HostStatus(status);
  }
  // Text that reaches the host (names, field names, reasons) is shown in
  // JSON, which holds only UTF-8: a config's bytes that are not are refused
  // here, naming the file, line and field, for every parser alike.
  static void check_utf8(std::string_view value, const Where& w) {
    const auto refuse = [&](std::string_view what, size_t offset) {
      throw Error(NDS_INVALID_ARGUMENT,
                  (w.file.empty() ? std::string("the config") : w.file) +
                      (w.line > 0 ? ":" + std::to_string(w.line) : std::string()) + ": " +
                      std::string(what) + " is not valid UTF-8 (byte " + std::to_string(offset) +
                      " of it); save the file as UTF-8");
    };
    if (auto at = invalid_utf8_offset(w.field)) refuse("the key", *at);
    if (auto at = invalid_utf8_offset(value)) refuse("the value of `" + shown(w.field) + "`", *at);
  }
  const nds_builder_v1& b_;
};

// What `apply` writes (nds_applied_strategy), as values.
struct AppliedStrategy {
  nds_strategy strategy{};            // every key set
  std::vector<int64_t> stage_layers;  // per virtual stage in pipeline order; empty: an even split
  int64_t layers = 0;                 // decoder layers of the language model
  int64_t devices = 0;
  int64_t global_batch = 0;
  // 1.7: each decoder layer's nds_layer_option as priced; empty: every layer
  // runs the strategy's recompute mode.
  std::vector<int32_t> layer_options;
  // 1.11: the NDS_OVERLAP_* switches it was priced with; nullopt from a host
  // before 1.11 (leave the config's overlap settings as they are).
  std::optional<uint64_t> overlap;

  // Reads the fields the host's struct has (a later host's extra fields are ignored).
  static AppliedStrategy of(const nds_applied_strategy& a) {
    AppliedStrategy out;
    const auto has = [&](size_t end) { return a.struct_size >= end; };
    if (has(offsetof(nds_applied_strategy, strategy) + sizeof(void*)) && a.strategy != nullptr)
      out.strategy = *a.strategy;
    if (has(offsetof(nds_applied_strategy, stage_layer_count) + sizeof(size_t)) &&
        a.stage_layers != nullptr)
      out.stage_layers.assign(a.stage_layers, a.stage_layers + a.stage_layer_count);
    if (has(offsetof(nds_applied_strategy, layers) + sizeof(int64_t))) out.layers = a.layers;
    if (has(offsetof(nds_applied_strategy, devices) + sizeof(int64_t))) out.devices = a.devices;
    if (has(offsetof(nds_applied_strategy, global_batch) + sizeof(int64_t)))
      out.global_batch = a.global_batch;
    if (has(offsetof(nds_applied_strategy, layer_option_count) + sizeof(size_t)) &&
        a.layer_options != nullptr)
      out.layer_options.assign(a.layer_options, a.layer_options + a.layer_option_count);
    if (has(offsetof(nds_applied_strategy, overlap) + sizeof(uint64_t))) out.overlap = a.overlap;
    return out;
  }
};

// Derive from it; `format` says what the parser reads, in words.
class ParserPlugin : public virtual Plugin {
 public:
  // In [0, 1]; a file that cannot be read is 0, not an exception.
  virtual double probe(const std::string& path) = 0;
  virtual void parse(const std::string& path, Builder& builder) = 0;
  // The text of the config at `path` with `applied` in it, or (path empty)
  // the strategy alone as a fragment of the format (nds_apply_fn). A parser
  // that writes its format overrides it and calls writes_configs() in its
  // constructor; a strategy the trainer cannot express throws
  // Error(NDS_UNSUPPORTED, ...) naming the key and why.
  virtual std::string apply(const std::string& path, const AppliedStrategy& applied) {
    (void)applied;
    throw Error(NDS_UNSUPPORTED, path + ": this parser does not write its format");
  }

 protected:
  // Offers apply through the interface table.
  void writes_configs() noexcept { table_.apply = &apply_trampoline; }

  explicit ParserPlugin(const char* format, const char* const* aliases = nullptr) {
    self() = this;
    table_.format = format;
    table_.aliases = aliases;
    offer(NDS_PARSER_INTERFACE_ID, &table_);
  }
  ~ParserPlugin() override { self() = nullptr; }

 private:
  static ParserPlugin*& self() noexcept {
    static ParserPlugin* plugin = nullptr;
    return plugin;
  }
  static nds_status* probe_trampoline(const char* path, double* confidence) noexcept {
    *confidence = 0;
    return guard([&] { *confidence = self()->probe(path); });
  }
  // Whatever the parser throws names the file: memory running out is a
  // limit of this machine (E-PARSE-LIMIT), another library's exception a
  // failure to read it; neither reaches the user as a bare "std::bad_alloc".
  static nds_status* parse_trampoline(const char* path, const nds_builder_v1* b) noexcept {
    return guard([&] {
      try {
        Builder builder(*b);
        self()->parse(path, builder);
      } catch (const HostStatus&) {
        throw;
      } catch (const Error&) {
        throw;
      } catch (const std::bad_alloc&) {
        throw LimitError(std::string("out of memory while reading ") + path +
                         "; the file is too large or too deeply nested to read on this machine");
      } catch (const std::exception& e) {
        throw Error(NDS_INTERNAL, std::string(path) + ": the parser failed while reading it (" +
                                      shown(e.what(), 200) + ")");
      }
    });
  }
  static nds_status* apply_trampoline(const char* path, const nds_applied_strategy* applied,
                                      const nds_text_sink* out) noexcept {
    return guard([&] {
      const std::string file = path != nullptr ? path : "";
      std::string text;
      try {
        text = self()->apply(file, AppliedStrategy::of(*applied));
      } catch (const HostStatus&) {
        throw;
      } catch (const Error&) {
        throw;
      } catch (const std::bad_alloc&) {
        throw LimitError("out of memory while writing " +
                         (file.empty() ? std::string("the strategy") : file));
      } catch (const std::exception& e) {
        throw Error(NDS_INTERNAL, (file.empty() ? std::string("the strategy") : file) +
                                      ": the parser failed while writing it (" +
                                      shown(e.what(), 200) + ")");
      }
      if (nds_status* failed = out->write(out->context, text.data(), text.size()))
        throw HostStatus(failed);
    });
  }
  nds_parser_v1 table_ = {sizeof(nds_parser_v1), nullptr, &probe_trampoline,
                          &parse_trampoline,     nullptr, nullptr};
};

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_PARSER_HPP_INCLUDED
