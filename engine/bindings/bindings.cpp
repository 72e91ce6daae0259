// Embind registration of the attention engine: registration only. Conversion
// and the error boundary live in adapter.cpp; the only JS caller is
// engine/js/engine.mjs, which validates arguments and throws returned Errors.
#include <emscripten/bind.h>

#include "adapter.hpp"

EMSCRIPTEN_BINDINGS(attn) {
  using namespace emscripten;
  namespace a = attn::adapter;
  function("attention", &a::attention);
  function("storeKeyValues", &a::store_key_values);
  function("attentionStored", &a::attention_stored);
  function("releaseKeyValues", &a::release_key_values);
  function("rowStats", &a::row_stats);
  function("experiment", &a::experiment);
  function("scoreMatrixBytes", &a::score_matrix_bytes);
  function("visiblePairs", &a::visible_pairs);
  function("info", &a::info);
  function("softmaxRow", &a::softmax_row);
  function("onlineSoftmaxTrace", &a::online_softmax_trace);
  function("logitStats", &a::logit_stats);
  function("jacobianNorm", &a::jacobian_norm);
  function("randomNormal", &a::random_normal);
  function("variantNames", &a::variant_names);
  function("errorCodes", &a::error_codes);
  function("memoryBudget", &a::memory_budget);
  function("setMemoryBudget", &a::set_memory_budget);
  function("multiheadAttention", &a::multihead_attention);
  function("kvBytesRead", &a::kv_bytes_read);
  function("createKvCache", &a::create_kv_cache);
  function("kvCachePrefill", &a::kv_cache_prefill);
  function("kvCacheDecode", &a::kv_cache_decode);
  function("kvCacheInfo", &a::kv_cache_info);
  function("deleteKvCache", &a::delete_kv_cache);
  function("createCharModel", &a::create_char_model);
  function("charModelParameterCount", &a::char_model_parameter_count);
  function("charModelTrainStep", &a::char_model_train_step);
  function("charModelLoss", &a::char_model_loss);
  function("charModelForward", &a::char_model_forward);
  function("charModelInfo", &a::char_model_info);
  function("charModelParameters", &a::char_model_parameters);
  function("charModelsLive", &a::char_models_live);
  function("deleteCharModel", &a::delete_char_model);
  function("charModelSample", &a::char_model_sample);
  function("createCharDecoder", &a::create_char_decoder);
  function("charDecoderFeed", &a::char_decoder_feed);
  function("charDecoderInfo", &a::char_decoder_info);
  function("deleteCharDecoder", &a::delete_char_decoder);
  function("charModelSave", &a::char_model_save);
  function("loadCharModel", &a::load_char_model);
}
