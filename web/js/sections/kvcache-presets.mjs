// Published attention shapes of real models for chapter 12's KV-cache calculator.
// Each number was checked against the model's published configuration (Hugging Face
// config.json, or the reference code's params.json for Mistral):
//   layers = num_hidden_layers, headsQ = num_attention_heads, headsKv = num_key_value_heads,
//   dHead = head_dim (or hidden_size / num_attention_heads where config.json has no head_dim),
//   window / windowedLayers = the sliding window and how many layers use it (0: none).
// No DOM, no prose: the page names a model by its key (kvcache.model.<key> in web/text).

export const PRESETS = Object.freeze({
  // meta-llama/Meta-Llama-3-8B config.json: 32 layers, 32 heads, 8 KV heads, hidden 4096 (4096/32 = 128)
  'llama3-8b': { layers: 32, headsQ: 32, headsKv: 8, dHead: 128, window: 0, windowedLayers: 0, ref: 'llama3' },
  // meta-llama/Meta-Llama-3-70B config.json: 80 layers, 64 heads, 8 KV heads, hidden 8192 (8192/64 = 128)
  'llama3-70b': { layers: 80, headsQ: 64, headsKv: 8, dHead: 128, window: 0, windowedLayers: 0, ref: 'llama3' },
  // mistralai/Mistral-7B-v0.1 config.json (sliding_window 4096) and params.json (head_dim 128,
  // n_layers 32, n_heads 32, n_kv_heads 8, window_size 4096): the window is on every layer
  'mistral-7b': { layers: 32, headsQ: 32, headsKv: 8, dHead: 128, window: 4096, windowedLayers: 32, ref: 'jiang2023' },
  // google/gemma-2-9b config.json: 42 layers, 16 heads, 8 KV heads, head_dim 256, sliding_window 4096,
  // cache_implementation "hybrid": local (windowed) and global layers alternate, so 21 of 42 are windowed
  'gemma2-9b': { layers: 42, headsQ: 16, headsKv: 8, dHead: 256, window: 4096, windowedLayers: 21, ref: 'gemma2' },
  // Qwen/Qwen2-7B config.json: 28 layers, 28 heads, 4 KV heads, hidden 3584 (3584/28 = 128;
  // k_proj is 3584 -> 512 = 4 x 128); use_sliding_window false
  'qwen2-7b': { layers: 28, headsQ: 28, headsKv: 4, dHead: 128, window: 0, windowedLayers: 0, ref: 'qwen2' },
});

export const MODEL_KEYS = [...Object.keys(PRESETS), 'custom'];
