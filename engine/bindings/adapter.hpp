// Adapter between JavaScript values and the C++ engine (engine.hpp): reads
// plain JS objects and typed arrays, calls the engine, and returns plain JS
// objects whose arrays are copies (never views into wasm memory).
// It does not validate for the user: engine/js/engine.mjs does that first,
// and the engine checks again. Errors: see `guarded` in adapter.cpp.
#pragma once

#include <emscripten/val.h>

#include <string>

namespace attn::adapter {

using emscripten::val;

// Matrices are {rows, cols, data: Float32Array}; options as in engine/README.md,
// already normalised by engine.mjs (scale: number or undefined; variant: string).
val attention(val q, val k, val v, val options);
// Keys and values kept in wasm memory between calls (attn::KeyValues):
// store returns an id, attention_stored runs on it, release frees it.
val store_key_values(val k, val v);
val attention_stored(double id, val q, val options);
val release_key_values(double id);
val row_stats(val weights);
val experiment(double n, double d_k, val seeds, bool scale);
// rule: {causal, window, rowOffset, queryPeriod}, normalised by engine.mjs
val visible_pairs(double L, double S, val rule);
val score_matrix_bytes(double n, double bytes_per_element, double heads, double layers, double batch);
val info();
val softmax_row(val logits, bool subtract_max);
val online_softmax_trace(val q, val k, val v, double row, double block_k, bool causal, val scale,
                         double window);
val logit_stats(val q, val k, val scale);
val jacobian_norm(val p);
val random_normal(double seed, double rows, double cols);
// The engine's own tables, so that engine.mjs and the tests repeat neither:
// the variants' names (attn::variant_name) and every error code the bindings
// can return (attn::error_code_name, then 'Internal').
val variant_names();
val error_codes();
val memory_budget();
val set_memory_budget(double bytes);
// Heads and the KV cache (engine.hpp): q, k, v head-major; options as attention's.
val multihead_attention(val q, val k, val v, double heads_q, double heads_kv, val options);
val kv_bytes_read(double heads_q, double heads_kv, double rows, double d_k, double d_v);
// KvCache objects kept in wasm memory: create returns an id, delete frees it.
val create_kv_cache(double heads_kv, double d_k, double d_v, double window);
val kv_cache_prefill(double id, val k, val v, val q, double heads_q, val options);  // q undefined: append only
val kv_cache_decode(double id, val q, val k, val v, val options);
val kv_cache_info(double id);  // {length, appended, bytes}
val delete_kv_cache(double id);

// The tiny character model (attn/train.hpp), kept in wasm memory behind an id.
// config: {vocab, context, width, layers, heads, kvHeads, seed}; training:
// {lrMax, lrMin, warmup, totalSteps, clipNorm, weightDecay}, both checked and
// complete (engine.mjs). Tokens arrive as Uint32Array.
val create_char_model(val config, val training);
val char_model_parameter_count(val config);
val char_model_train_step(double id, val inputs, val targets, double batch);  // {loss, step, gradNorm}
val char_model_loss(double id, val inputs, val targets, double batch);
val char_model_forward(double id, val tokens);  // {probs: (T, V), attention: [layer][head] (T, T)}
val char_model_info(double id);                 // {step, lastGradNorm, parameterCount}
val char_model_parameters(double id);           // Float32Array copy
val char_models_live();                         // models not deleted (for the leak tests)
val delete_char_model(double id);  // and its decoders
// Generation (attn/char_sampling.hpp). options: {temperature, topK, seed}, checked.
val char_model_sample(double id, val prompt, double count, val options);  // Uint32Array
// A CharModelDecoder of model `id`, kept under its own id; freed with it.
val create_char_decoder(double model_id);
val char_decoder_feed(double id, double token);  // Float32Array of vocab probabilities
val char_decoder_info(double id);                // {length, cacheBytes, cacheCapacityBytes}
val delete_char_decoder(double id);
// Checkpoints (attn/checkpoint.hpp). vocabulary: code points (array), checked length by the engine;
// format 'f32' | 'f16' | 'int8'. save -> Uint8Array; load -> {id, config, training, vocabulary, format, optimizer}.
val char_model_save(double id, val vocabulary, std::string format, bool optimizer);
val load_char_model(val bytes);

}  // namespace attn::adapter
