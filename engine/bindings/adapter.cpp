// Conversion between JS values and engine types, and the error boundary.
//
// Errors: every entry point runs inside `guarded`. An attn::Error becomes a JS
// Error whose message is the engine's message and whose `.code` is the
// ErrorCode name ('ShapeMismatch', ...). The Error is RETURNED, and
// engine/js/engine.mjs throws it: a JS exception thrown from inside an Embind
// call unwinds wasm frames without running C++ destructors, which would leak
// the converted inputs (wasm heap) and the argument handles (JS heap).
#include "adapter.hpp"

#include <emscripten/heap.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/engine.hpp"
#include "attn/char_sampling.hpp"
#include "attn/checkpoint.hpp"
#include "attn/train.hpp"

namespace attn::adapter {
namespace {

using emscripten::typed_memory_view;

// The code of an exception that is not an attn::Error (an engine defect).
constexpr const char* kInternal = "Internal";

val js_error(const std::string& message, const char* code) {
  val error = val::global("Error").new_(message);
  error.set("code", code);
  return error;
}

// Runs f() and turns any C++ exception into a returned JS Error (see top).
template <class F>
val guarded(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    return js_error(e.what(), error_code_name(e.code()));
  } catch (const std::bad_alloc&) {
    return js_error("out of memory: the WebAssembly heap cannot grow any further (4 GiB at most)",
                    "TooLarge");
  } catch (const std::exception& e) {
    return js_error(std::string("internal error: ") + e.what(), kInternal);
  }
}

// Sizes of things held in memory (rows, columns, heads of a cache, block
// sizes). Saturating: a double past SIZE_MAX (32 bits on wasm32) would trap
// in the conversion, and SIZE_MAX means the same as anything larger for each
// of them (more rows or heads than wasm32 can hold are refused by the budget;
// a block or window of SIZE_MAX keys already covers every key).
std::size_t to_size(double x) {
  if (!(x > 0)) return 0;
  return x >= static_cast<double>(SIZE_MAX) ? SIZE_MAX : static_cast<std::size_t>(x);
}

// Counts and positions the engine takes as 64-bit (the visibility rule's
// options, visible_pairs, kv_bytes_read): exact for every whole number
// engine.mjs lets through (at most 2^53), so WebAssembly agrees with native.
std::uint64_t to_u64(double x) {
  if (!(x > 0)) return 0;
  return x >= 0x1p64 ? UINT64_MAX : static_cast<std::uint64_t>(x);
}

// {rows, cols, data: Float32Array | number[]} -> owning Matrix (one copy into wasm memory).
Matrix to_matrix(const val& m, const char* fn, const char* name) {
  Matrix out;
  out.rows = to_size(m["rows"].as<double>());
  out.cols = to_size(m["cols"].as<double>());
  // as convertJSArrayToNumberVector does, but into the Matrix's aligned storage
  const val data = m["data"];
  out.data.resize(to_size(data["length"].as<double>()));
  val(typed_memory_view(out.data.size(), out.data.data())).call<void>("set", data);
  if (static_cast<double>(out.data.size()) != static_cast<double>(out.rows) * out.cols)
    throw Error(ErrorCode::ShapeMismatch, std::string(fn) + ": " + name + ".data has " +
                                              std::to_string(out.data.size()) + " numbers but " +
                                              name + " is " + std::to_string(out.rows) + "x" +
                                              std::to_string(out.cols));
  return out;
}

// Copies n floats out of wasm memory into a fresh Float32Array.
val f32_copy(const float* p, std::size_t n) {
  return val(typed_memory_view(n, p)).call<val>("slice");
}
template <class Alloc>
val f32_copy(const std::vector<float, Alloc>& v) { return f32_copy(v.data(), v.size()); }

val to_js(const Matrix& m) {
  val out = val::object();
  out.set("rows", static_cast<double>(m.rows));
  out.set("cols", static_cast<double>(m.cols));
  out.set("data", f32_copy(m.data));
  return out;
}

std::optional<float> to_scale(const val& scale) {
  if (scale.isUndefined() || scale.isNull()) return std::nullopt;
  return static_cast<float>(scale.as<double>());
}

// engine.mjs passes only names from variant_names() (the engine's own table).
Variant to_variant(const std::string& name) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(Variant::Count); ++i)
    if (name == variant_name(static_cast<Variant>(i))) return static_cast<Variant>(i);
  return Variant::Count;  // the engine refuses it with its own message
}

val experiment_row(const ExperimentRow& r) {
  val out = val::object();
  out.set("seed", static_cast<double>(r.seed));
  out.set("maxWeight", r.max_weight);
  out.set("meanEntropy", r.mean_entropy);
  out.set("entropyShare", r.entropy_share);
  out.set("meanSqLogit", r.mean_sq_logit);
  out.set("rmsLogit", r.rms_logit);
  out.set("jacobianNorm", r.jacobian_norm);
  return out;
}

}  // namespace

namespace {

// The options object (already normalised by engine.mjs) as AttentionOptions;
// the mask, if any, is copied into `mask` (L×S), which must outlive the call.
AttentionOptions to_options(const val& options, std::size_t L, std::size_t S,
                            std::vector<std::uint8_t>& mask) {
  AttentionOptions opt;
  opt.causal = options["causal"].as<bool>();
  opt.scale = to_scale(options["scale"]);
  opt.variant = to_variant(options["variant"].as<std::string>());
  opt.block_q = to_size(options["blockQ"].as<double>());
  opt.block_k = to_size(options["blockK"].as<double>());
  opt.return_weights = options["returnWeights"].as<bool>();
  opt.row_offset = to_u64(options["rowOffset"].as<double>());
  opt.window = to_u64(options["window"].as<double>());
  opt.query_period = to_u64(options["queryPeriod"].as<double>());
  const val js_mask = options["mask"];
  if (!js_mask.isUndefined() && !js_mask.isNull()) {
    mask = emscripten::convertJSArrayToNumberVector<std::uint8_t>(js_mask["data"]);
    // in double: L * S in size_t wraps at 2^32 on wasm32 (65536 x 65537 would pass as 65536)
    if (static_cast<double>(mask.size()) != static_cast<double>(L) * static_cast<double>(S))
      throw Error(ErrorCode::ShapeMismatch,
                  "attention: mask has " + std::to_string(mask.size()) + " entries but q has " +
                      std::to_string(L) + " rows and k has " + std::to_string(S) +
                      " rows (the mask must be L x S)");
    opt.mask = mask.data();
  }
  return opt;
}

val result_to_js(const AttentionResult& r, bool return_weights) {
  val out = val::object();
  out.set("out", to_js(r.out));
  if (return_weights) {
    out.set("weights", to_js(r.weights));
    out.set("scores", to_js(r.scores));
  }
  out.set("scratchBytes", static_cast<double>(r.scratch_bytes));
  val masked = val::array();
  for (std::uint32_t row : r.masked_rows) masked.call<void>("push", static_cast<double>(row));
  out.set("maskedRows", masked);
  return out;
}

std::map<int, std::unique_ptr<KeyValues>> g_key_values;  // id -> kept keys and values
int g_next_key_values = 1;

}  // namespace

val attention(val q, val k, val v, val options) {
  return guarded([&] {
    const Matrix qm = to_matrix(q, "attention", "q");
    const Matrix km = to_matrix(k, "attention", "k");
    const Matrix vm = to_matrix(v, "attention", "v");
    std::vector<std::uint8_t> mask;
    const AttentionOptions opt = to_options(options, qm.rows, km.rows, mask);
    return result_to_js(attention(qm.view(), km.view(), vm.view(), opt), opt.return_weights);
  });
}

val store_key_values(val k, val v) {
  return guarded([&] {
    auto kv = std::make_unique<KeyValues>(to_matrix(k, "keyValues", "k"), to_matrix(v, "keyValues", "v"));
    const int id = g_next_key_values++;
    g_key_values[id] = std::move(kv);
    return val(id);
  });
}

val attention_stored(double id, val q, val options) {
  return guarded([&] {
    const auto it = g_key_values.find(static_cast<int>(id));
    if (it == g_key_values.end())
      throw Error(ErrorCode::BadArgument, "attention: these keys and values were released");
    const KeyValues& kv = *it->second;
    const Matrix qm = to_matrix(q, "attention", "q");
    std::vector<std::uint8_t> mask;
    const AttentionOptions opt = to_options(options, qm.rows, kv.k().rows, mask);
    return result_to_js(attention(qm.view(), kv, opt), opt.return_weights);
  });
}

val release_key_values(double id) {
  return guarded([&] {
    g_key_values.erase(static_cast<int>(id));
    return val::undefined();
  });
}

val row_stats(val weights) {
  return guarded([&] {
    const Matrix w = to_matrix(weights, "rowStats", "weights");
    const RowStats s = attn::row_stats(w.view());
    val out = val::object();
    out.set("entropy", f32_copy(s.entropy));
    out.set("maxWeight", f32_copy(s.max_weight));
    return out;
  });
}

val experiment(double n, double d_k, val seeds, bool scale) {
  return guarded([&] {
    std::vector<std::uint64_t> s;
    for (double seed : emscripten::vecFromJSArray<double>(seeds))
      s.push_back(static_cast<std::uint64_t>(seed));
    const ExperimentResult r = attn::experiment(to_size(n), to_size(d_k), s, scale);
    val per_seed = val::array();
    for (const ExperimentRow& row : r.per_seed) per_seed.call<void>("push", experiment_row(row));
    val out = val::object();
    out.set("perSeed", per_seed);
    out.set("mean", experiment_row(r.mean));
    out.set("uniformEntropy", r.uniform_entropy);
    return out;
  });
}

val visible_pairs(double L, double S, val rule) {
  return guarded([&] {
    AttentionOptions opt;
    opt.causal = rule["causal"].as<bool>();
    opt.window = to_u64(rule["window"].as<double>());
    opt.row_offset = to_u64(rule["rowOffset"].as<double>());
    opt.query_period = to_u64(rule["queryPeriod"].as<double>());
    return val(attn::visible_pairs(to_u64(L), to_u64(S), opt));
  });
}

val score_matrix_bytes(double n, double bytes_per_element, double heads, double layers, double batch) {
  return guarded([&] { return val(attn::score_matrix_bytes(n, bytes_per_element, heads, layers, batch)); });
}

val info() {
  return guarded([&] {
    val out = val::object();
    out.set("simd", std::string(simd_arch_name()));
    out.set("version", std::string(version()));
    // which build is running: attn-relaxed.wasm (fused multiply-adds) or attn.wasm
#if defined(__wasm_relaxed_simd__)
    out.set("wasm", std::string("relaxed"));
#else
    out.set("wasm", std::string("simd128"));
#endif
    // Current size of the wasm heap; it only grows, so it is also the peak.
    out.set("heapBytes", static_cast<double>(emscripten_get_heap_size()));
    return out;
  });
}

val softmax_row(val logits, bool subtract_max) {
  return guarded([&] {
    const SoftmaxRowResult r =
        attn::softmax_row(emscripten::convertJSArrayToNumberVector<float>(logits), subtract_max);
    val out = val::object();
    out.set("weights", f32_copy(r.weights));
    out.set("overflowed", r.overflowed);
    return out;
  });
}

val online_softmax_trace(val q, val k, val v, double row, double block_k, bool causal, val scale,
                         double window) {
  return guarded([&] {
    const Matrix qm = to_matrix(q, "onlineSoftmaxTrace", "q");
    const Matrix km = to_matrix(k, "onlineSoftmaxTrace", "k");
    const Matrix vm = to_matrix(v, "onlineSoftmaxTrace", "v");
    const OnlineSoftmaxTrace t = attn::online_softmax_trace(qm.view(), km.view(), vm.view(), to_size(row),
                                                            to_size(block_k), causal, to_scale(scale),
                                                            to_size(window));
    val steps = val::array();
    for (const OnlineSoftmaxStep& s : t.steps) {
      val step = val::object();
      step.set("tile", static_cast<double>(s.tile));
      step.set("keyBegin", static_cast<double>(s.key_begin));
      step.set("keyEnd", static_cast<double>(s.key_end));
      step.set("tileMax", s.tile_max);
      step.set("mOld", s.m_old);
      step.set("mNew", s.m_new);
      step.set("rescale", s.rescale);
      step.set("lOld", s.l_old);
      step.set("lNew", s.l_new);
      step.set("acc", f32_copy(s.acc));
      steps.call<void>("push", step);
    }
    val out = val::object();
    out.set("steps", steps);
    out.set("out", f32_copy(t.out));
    out.set("reference", f32_copy(t.reference));
    out.set("maxAbsDiff", t.max_abs_diff);
    return out;
  });
}

val logit_stats(val q, val k, val scale) {
  return guarded([&] {
    const Matrix qm = to_matrix(q, "logitStats", "q");
    const Matrix km = to_matrix(k, "logitStats", "k");
    const LogitStats s = attn::logit_stats(qm.view(), km.view(), to_scale(scale));
    val out = val::object();
    out.set("meanSqUnscaled", s.mean_sq_unscaled);
    out.set("rmsUnscaled", s.rms_unscaled);
    out.set("meanSqScaled", s.mean_sq_scaled);
    out.set("rmsScaled", s.rms_scaled);
    return out;
  });
}

val jacobian_norm(val p) {
  return guarded([&] {
    const std::vector<float> row = emscripten::convertJSArrayToNumberVector<float>(p);
    return val(softmax_jacobian_norm(row.data(), row.size()));
  });
}

val random_normal(double seed, double rows, double cols) {
  return guarded([&] {
    NormalRng rng(static_cast<std::uint64_t>(seed));
    return to_js(attn::random_normal(rng, to_size(rows), to_size(cols)));
  });
}

val variant_names() {
  return guarded([&] {
    val names = val::array();
    for (std::size_t i = 0; i < static_cast<std::size_t>(Variant::Count); ++i)
      names.call<void>("push", std::string(variant_name(static_cast<Variant>(i))));
    return names;
  });
}

val error_codes() {
  return guarded([&] {
    val codes = val::array();
    for (std::size_t i = 0; i < static_cast<std::size_t>(ErrorCode::Count); ++i)
      codes.call<void>("push", std::string(error_code_name(static_cast<ErrorCode>(i))));
    codes.call<void>("push", std::string(kInternal));
    return codes;
  });
}

val memory_budget() {
  return guarded([&] { return val(static_cast<double>(attn::memory_budget())); });
}

val set_memory_budget(double bytes) {
  return guarded([&] {
    attn::set_memory_budget(to_size(bytes));  // past SIZE_MAX: everything addressable
    return val::undefined();
  });
}

// ---------------------------------------------------------------- heads and the KV cache
namespace {

// A MultiheadResult as {out, weights?: matrix[], scores?: matrix[], scratchBytes, kernelCalls,
// maskedRows: number[][]}.
val multihead_to_js(const MultiheadResult& r, bool return_weights) {
  val out = val::object();
  out.set("out", to_js(r.out));
  if (return_weights) {
    val weights = val::array(), scores = val::array();
    for (const Matrix& w : r.weights) weights.call<void>("push", to_js(w));
    for (const Matrix& s : r.scores) scores.call<void>("push", to_js(s));
    out.set("weights", weights);
    out.set("scores", scores);
  }
  out.set("scratchBytes", static_cast<double>(r.scratch_bytes));
  out.set("kernelCalls", static_cast<double>(r.kernel_calls));  // one per KV group, per head with a mask
  val masked = val::array();
  for (const auto& rows : r.masked_rows) {
    val head = val::array();
    for (std::uint32_t row : rows) head.call<void>("push", static_cast<double>(row));
    masked.call<void>("push", head);
  }
  out.set("maskedRows", masked);
  return out;
}

std::map<int, std::unique_ptr<KvCache>> g_kv_caches;  // id -> cache
int g_next_kv_cache = 1;

KvCache& kv_cache(double id, const char* fn) {
  const auto it = g_kv_caches.find(static_cast<int>(id));
  if (it == g_kv_caches.end())
    throw Error(ErrorCode::BadArgument, std::string(fn) + ": this key/value cache was deleted");
  return *it->second;
}

}  // namespace

val multihead_attention(val q, val k, val v, double heads_q, double heads_kv, val options) {
  return guarded([&] {
    const char* fn = "multiheadAttention";
    const Matrix qm = to_matrix(q, fn, "q");
    const Matrix km = to_matrix(k, fn, "k");
    const Matrix vm = to_matrix(v, fn, "v");
    const HeadCounts heads{to_u64(heads_q), to_u64(heads_kv)};
    // a mask is L x S of one head (engine.mjs checked the divisions)
    const std::size_t L = heads.q != 0 ? static_cast<std::size_t>(qm.rows / heads.q) : 0;
    const std::size_t S = heads.kv != 0 ? static_cast<std::size_t>(km.rows / heads.kv) : 0;
    std::vector<std::uint8_t> mask;
    const AttentionOptions opt = to_options(options, L, S, mask);
    return multihead_to_js(attn::multihead_attention(qm.view(), km.view(), vm.view(), heads, opt),
                           opt.return_weights);
  });
}

val kv_bytes_read(double heads_q, double heads_kv, double rows, double d_k, double d_v) {
  return guarded([&] {
    return val(attn::kv_bytes_read({to_u64(heads_q), to_u64(heads_kv)}, to_u64(rows), to_u64(d_k),
                                   to_u64(d_v)));
  });
}

val create_kv_cache(double heads_kv, double d_k, double d_v, double window) {
  return guarded([&] {
    auto cache = std::make_unique<KvCache>(to_size(heads_kv), to_size(d_k), to_size(d_v), to_size(window));
    const int id = g_next_kv_cache++;
    g_kv_caches[id] = std::move(cache);
    return val(id);
  });
}

val kv_cache_prefill(double id, val k, val v, val q, double heads_q, val options) {
  return guarded([&] {
    const char* fn = "prefill";
    KvCache& cache = kv_cache(id, fn);
    const Matrix km = to_matrix(k, fn, "k");
    const Matrix vm = to_matrix(v, fn, "v");
    if (q.isUndefined() || q.isNull()) {
      cache.prefill(km.view(), vm.view());
      return val::undefined();
    }
    const Matrix qm = to_matrix(q, fn, "q");
    std::vector<std::uint8_t> no_mask;  // engine.mjs allows no mask here
    const AttentionOptions opt = to_options(options, 0, 0, no_mask);
    return multihead_to_js(cache.prefill_attention(qm.view(), km.view(), vm.view(), to_size(heads_q), opt),
                           opt.return_weights);
  });
}

val kv_cache_decode(double id, val q, val k, val v, val options) {
  return guarded([&] {
    const char* fn = "decode";
    KvCache& cache = kv_cache(id, fn);
    const Matrix qm = to_matrix(q, fn, "q");
    const Matrix km = to_matrix(k, fn, "k");
    const Matrix vm = to_matrix(v, fn, "v");
    std::vector<std::uint8_t> no_mask;
    const AttentionOptions opt = to_options(options, 0, 0, no_mask);
    const AttentionResult r = cache.decode_step(qm.view(), km.view(), vm.view(), opt);
    val out = val::object();
    out.set("out", to_js(r.out));
    out.set("scratchBytes", static_cast<double>(r.scratch_bytes));
    return out;
  });
}

val kv_cache_info(double id) {
  return guarded([&] {
    const KvCache& cache = kv_cache(id, "kvCache");
    val out = val::object();
    out.set("length", static_cast<double>(cache.length()));
    out.set("appended", static_cast<double>(cache.appended()));
    out.set("bytes", static_cast<double>(cache.bytes()));
    return out;
  });
}

val delete_kv_cache(double id) {
  return guarded([&] {
    g_kv_caches.erase(static_cast<int>(id));
    return val::undefined();
  });
}

// ---------------------------------------------------------------- the character model
namespace {

std::map<int, std::unique_ptr<CharModel>> g_char_models;  // id -> model
int g_next_char_model = 1;
// id -> {model id, decoder}; a decoder refers to its model, so deleting the model deletes them
std::map<int, std::pair<int, std::unique_ptr<CharModelDecoder>>> g_char_decoders;
int g_next_char_decoder = 1;

CharModel& char_model(double id, const char* fn) {
  const auto it = g_char_models.find(static_cast<int>(id));
  if (it == g_char_models.end())
    throw Error(ErrorCode::BadArgument, std::string(fn) + ": this character model was deleted");
  return *it->second;
}

CharModelConfig to_char_config(const val& c) {
  CharModelConfig out;
  out.vocab = to_size(c["vocab"].as<double>());
  out.context = to_size(c["context"].as<double>());
  out.width = to_size(c["width"].as<double>());
  out.layers = to_size(c["layers"].as<double>());
  out.heads = to_size(c["heads"].as<double>());
  out.kv_heads = to_size(c["kvHeads"].as<double>());
  out.seed = to_u64(c["seed"].as<double>());
  return out;
}

TrainingConfig to_training(const val& t) {
  TrainingConfig out;
  out.lr_max = t["lrMax"].as<double>();
  out.lr_min = t["lrMin"].as<double>();
  out.warmup = to_size(t["warmup"].as<double>());
  out.total_steps = to_size(t["totalSteps"].as<double>());
  out.clip_norm = t["clipNorm"].as<double>();
  out.adam.weight_decay = static_cast<float>(t["weightDecay"].as<double>());
  return out;
}

// A Uint32Array (engine.mjs makes one) -> its own vector, one copy.
std::vector<std::uint32_t> to_tokens(const val& a) {
  std::vector<std::uint32_t> out(to_size(a["length"].as<double>()));
  val(typed_memory_view(out.size(), out.data())).call<void>("set", a);
  return out;
}

}  // namespace

val create_char_model(val config, val training) {
  return guarded([&] {
    auto model = std::make_unique<CharModel>(to_char_config(config), to_training(training));
    const int id = g_next_char_model++;
    g_char_models[id] = std::move(model);
    return val(id);
  });
}

val char_model_parameter_count(val config) {
  return guarded([&] { return val(static_cast<double>(attn::char_model_parameter_count(to_char_config(config)))); });
}

val char_model_train_step(double id, val inputs, val targets, double batch) {
  return guarded([&] {
    CharModel& model = char_model(id, "trainStep");
    const double loss = model.train_step(to_tokens(inputs), to_tokens(targets), to_size(batch));
    val out = val::object();
    out.set("loss", loss);
    out.set("step", static_cast<double>(model.step()));
    out.set("gradNorm", model.last_grad_norm());
    return out;
  });
}

val char_model_loss(double id, val inputs, val targets, double batch) {
  return guarded([&] {
    const CharModel& model = char_model(id, "evaluate");
    return val(model.loss(to_tokens(inputs), to_tokens(targets), to_size(batch)));
  });
}

val char_model_forward(double id, val tokens) {
  return guarded([&] {
    const CharModel& model = char_model(id, "forward");
    const CharModelForward r = model.forward(to_tokens(tokens));
    val layers = val::array();
    for (const auto& heads : r.attention) {
      val row = val::array();
      for (const Matrix& w : heads) row.call<void>("push", to_js(w));
      layers.call<void>("push", row);
    }
    val out = val::object();
    out.set("probs", to_js(r.probs));
    out.set("attention", layers);
    return out;
  });
}

val char_model_info(double id) {
  return guarded([&] {
    const CharModel& model = char_model(id, "charModel");
    val out = val::object();
    out.set("step", static_cast<double>(model.step()));
    out.set("lastGradNorm", model.last_grad_norm());
    out.set("parameterCount", static_cast<double>(model.parameters().size()));
    return out;
  });
}

val char_model_parameters(double id) {
  return guarded([&] { return f32_copy(char_model(id, "parameters").parameters()); });
}

val char_models_live() {
  return guarded([&] { return val(static_cast<double>(g_char_models.size())); });
}

val delete_char_model(double id) {
  return guarded([&] {
    const int model = static_cast<int>(id);
    for (auto it = g_char_decoders.begin(); it != g_char_decoders.end();)
      it = it->second.first == model ? g_char_decoders.erase(it) : std::next(it);
    g_char_models.erase(model);
    return val::undefined();
  });
}

val char_model_sample(double id, val prompt, double count, val options) {
  return guarded([&] {
    const CharModel& model = char_model(id, "sample");
    SampleOptions opt;
    opt.temperature = options["temperature"].as<double>();
    opt.top_k = to_size(options["topK"].as<double>());
    opt.seed = to_u64(options["seed"].as<double>());
    const std::vector<std::uint32_t> out = attn::sample(model, to_tokens(prompt), to_size(count), opt);
    return val(typed_memory_view(out.size(), out.data())).call<val>("slice");
  });
}

namespace {
CharModelDecoder& char_decoder(double id, const char* fn) {
  const auto it = g_char_decoders.find(static_cast<int>(id));
  if (it == g_char_decoders.end())
    throw Error(ErrorCode::BadArgument, std::string(fn) + ": this decoder was deleted (or its model was)");
  return *it->second.second;
}
}  // namespace

val create_char_decoder(double model_id) {
  return guarded([&] {
    auto decoder = std::make_unique<CharModelDecoder>(char_model(model_id, "decoder"));
    const int id = g_next_char_decoder++;
    g_char_decoders[id] = {static_cast<int>(model_id), std::move(decoder)};
    return val(id);
  });
}

val char_decoder_feed(double id, double token) {
  return guarded([&] {
    // engine.mjs passes a whole number below 2^32
    return f32_copy(char_decoder(id, "feed").feed(static_cast<std::uint32_t>(token)));
  });
}

val char_decoder_info(double id) {
  return guarded([&] {
    const CharModelDecoder& d = char_decoder(id, "decoder");
    val out = val::object();
    out.set("length", static_cast<double>(d.length()));
    out.set("cacheBytes", static_cast<double>(d.cache_bytes()));
    out.set("cacheCapacityBytes", static_cast<double>(d.cache_capacity_bytes()));
    return out;
  });
}

val delete_char_decoder(double id) {
  return guarded([&] {
    g_char_decoders.erase(static_cast<int>(id));
    return val::undefined();
  });
}

namespace {

const char* format_name(WeightFormat f) {
  return f == WeightFormat::F32 ? "f32" : f == WeightFormat::F16 ? "f16" : "int8";
}

// The model's settings as engine.mjs names them (charModel's options).
val char_config_to_js(const CharModel& model) {
  const CharModelConfig& c = model.config();
  val config = val::object();
  config.set("vocab", static_cast<double>(c.vocab));
  config.set("context", static_cast<double>(c.context));
  config.set("width", static_cast<double>(c.width));
  config.set("layers", static_cast<double>(c.layers));
  config.set("heads", static_cast<double>(c.heads));
  config.set("kvHeads", static_cast<double>(c.kv_heads));
  config.set("seed", static_cast<double>(c.seed));
  return config;
}

val training_to_js(const CharModel& model) {
  const TrainingConfig& t = model.training();
  val out = val::object();
  out.set("lrMax", t.lr_max);
  out.set("lrMin", t.lr_min);
  out.set("warmup", static_cast<double>(t.warmup));
  out.set("totalSteps", static_cast<double>(t.total_steps));
  out.set("clipNorm", t.clip_norm);
  out.set("weightDecay", static_cast<double>(t.adam.weight_decay));
  return out;
}

}  // namespace

val char_model_save(double id, val vocabulary, std::string format, bool optimizer) {
  return guarded([&] {
    const CharModel& model = char_model(id, "save");
    CheckpointOptions opt;
    opt.format = format == "f32" ? WeightFormat::F32 : format == "int8" ? WeightFormat::Int8 : WeightFormat::F16;
    opt.optimizer = optimizer;
    const std::vector<std::uint8_t> bytes = save_checkpoint(model, to_tokens(vocabulary), opt);
    return val(typed_memory_view(bytes.size(), bytes.data())).call<val>("slice");
  });
}

val load_char_model(val bytes) {
  return guarded([&] {
    std::vector<std::uint8_t> data(to_size(bytes["length"].as<double>()));
    val(typed_memory_view(data.size(), data.data())).call<void>("set", bytes);
    Checkpoint c = load_checkpoint(data.data(), data.size());
    auto model = std::make_unique<CharModel>(std::move(c.model));
    val out = val::object();
    out.set("config", char_config_to_js(*model));
    out.set("training", training_to_js(*model));
    out.set("vocabulary", val(typed_memory_view(c.vocabulary.size(), c.vocabulary.data())).call<val>("slice"));
    out.set("format", std::string(format_name(c.format)));
    out.set("optimizer", c.optimizer);
    const int id = g_next_char_model++;
    g_char_models[id] = std::move(model);
    out.set("id", id);
    return out;
  });
}

}  // namespace attn::adapter
