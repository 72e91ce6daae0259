// Trains the character model of one language natively and writes the
// shipped files (build-scripts/train-models runs it for fa and ar):
//   train_char --corpus C --lang L --ckpt OUT.ckpt --json OUT.json [--steps 800]
//              [--batch 16] [--seed 1] [--command "..."]
// The corpus is a UTF-8 text (build-scripts/char-corpus.mjs); its last 10%
// is held out. On the held-out text it reports, for the same predicted
// characters (every one after the first), the unigram and bigram baselines
// with add-one (Laplace) smoothing counted on the training part, and the
// model's loss, all in nats per character.
//   train_char --corpus C --verify OUT.json --ckpt OUT.ckpt [--steps 20]
// retrains the first steps from the recorded seed and checks the recorded
// loss curve (relative tolerance 1e-3: another build's float rounding
// differs), and checks that the shipped checkpoint beats the bigram on the
// held-out text. Exit status 1 when a check fails.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "attn/char_sampling.hpp"
#include "attn/checkpoint.hpp"
#include "attn/train.hpp"

namespace {

std::vector<std::uint32_t> utf8_decode(const std::string& s) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int n = b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    std::uint32_t cp = n == 1 ? b : n == 2 ? b & 0x1f : n == 3 ? b & 0x0f : b & 0x07;
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    out.push_back(cp);
    i += n;
  }
  return out;
}

std::string utf8_encode(std::uint32_t cp) {
  std::string s;
  if (cp < 0x80) s += static_cast<char>(cp);
  else if (cp < 0x800) s += static_cast<char>(0xc0 | (cp >> 6)), s += static_cast<char>(0x80 | (cp & 0x3f));
  else if (cp < 0x10000)
    s += static_cast<char>(0xe0 | (cp >> 12)), s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f)),
        s += static_cast<char>(0x80 | (cp & 0x3f));
  else
    s += static_cast<char>(0xf0 | (cp >> 18)), s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f)),
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f)), s += static_cast<char>(0x80 | (cp & 0x3f));
  return s;
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\', o += ch;
    else if (ch == '\n') o += "\\n";
    else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      o += buf;
    } else o += ch;
  }
  return o + "\"";
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

struct Data {
  std::vector<std::uint32_t> vocab, train, val;  // vocab: code points sorted; train/val: token ids
};

Data load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::vector<std::uint32_t> cps = utf8_decode(text);
  Data d;
  d.vocab = cps;
  std::sort(d.vocab.begin(), d.vocab.end());
  d.vocab.erase(std::unique(d.vocab.begin(), d.vocab.end()), d.vocab.end());
  std::vector<std::uint32_t> ids(cps.size());
  for (std::size_t i = 0; i < cps.size(); ++i)
    ids[i] = static_cast<std::uint32_t>(std::lower_bound(d.vocab.begin(), d.vocab.end(), cps[i]) - d.vocab.begin());
  const std::size_t n_val = ids.size() / 10;
  d.train.assign(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(n_val));
  d.val.assign(ids.end() - static_cast<std::ptrdiff_t>(n_val), ids.end());
  return d;
}

// Add-one smoothed unigram and bigram, nats per character on val[1..].
void baselines(const Data& d, double& unigram, double& bigram) {
  const std::size_t V = d.vocab.size();
  std::vector<double> uni(V, 0.0), first(V, 0.0), bi(V * V, 0.0);
  for (std::uint32_t t : d.train) uni[t] += 1;
  for (std::size_t i = 1; i < d.train.size(); ++i) bi[d.train[i - 1] * V + d.train[i]] += 1, first[d.train[i - 1]] += 1;
  double u = 0, b = 0;
  for (std::size_t i = 1; i < d.val.size(); ++i) {
    const std::uint32_t prev = d.val[i - 1], cur = d.val[i];
    u -= std::log((uni[cur] + 1) / (static_cast<double>(d.train.size()) + V));
    b -= std::log((bi[prev * V + cur] + 1) / (first[prev] + V));
  }
  unigram = u / static_cast<double>(d.val.size() - 1);
  bigram = b / static_cast<double>(d.val.size() - 1);
}

// The model's mean loss on the same characters: windows of up to `context`.
double validation_loss(const attn::CharModel& m, const std::vector<std::uint32_t>& val) {
  const std::size_t T = m.config().context;
  double total = 0;
  for (std::size_t s = 0; s + 1 < val.size(); s += T) {
    const std::size_t L = std::min(T, val.size() - 1 - s);
    const std::vector<std::uint32_t> in(val.begin() + s, val.begin() + s + L), out(val.begin() + s + 1, val.begin() + s + L + 1);
    total += m.loss(in, out, 1) * static_cast<double>(L);
  }
  return total / static_cast<double>(val.size() - 1);
}

void batch(attn::NormalRng& rng, const std::vector<std::uint32_t>& ids, std::size_t B, std::size_t T,
           std::vector<std::uint32_t>& in, std::vector<std::uint32_t>& out) {
  in.clear(), out.clear();
  for (std::size_t b = 0; b < B; ++b) {
    const std::size_t at = static_cast<std::size_t>(rng.next_u64() % (ids.size() - T));
    in.insert(in.end(), ids.begin() + at, ids.begin() + at + T);
    out.insert(out.end(), ids.begin() + at + 1, ids.begin() + at + T + 1);
  }
}

// Recorded per-step losses from a JSON written by this tool ("train_loss": [ ... ]).
std::vector<double> recorded_losses(const std::string& json) {
  const std::size_t at = json.find("\"train_loss\": [");
  if (at == std::string::npos) throw std::runtime_error("no train_loss in the JSON");
  std::vector<double> xs;
  std::istringstream in(json.substr(at + 15, json.find(']', at) - at - 15));
  std::string tok;
  while (std::getline(in, tok, ',')) xs.push_back(std::stod(tok));
  return xs;
}

std::size_t json_number(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) throw std::runtime_error("no " + key + " in the JSON");
  return static_cast<std::size_t>(std::stoull(json.substr(at + key.size() + 4)));
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a = {{"--steps", "800"}, {"--batch", "16"}, {"--seed", "1"},
                                          {"--context", "64"}, {"--width", "64"}, {"--layers", "2"},
                                          {"--heads", "4"}, {"--kv-heads", "4"}, {"--lang", "?"}, {"--command", ""}};
  for (int i = 1; i + 1 < argc; i += 2) a[argv[i]] = argv[i + 1];
  try {
    const Data d = load(a.at("--corpus"));
    attn::CharModelConfig c;
    c.vocab = d.vocab.size();
    attn::TrainingConfig t;
    std::size_t B = std::stoul(a["--batch"]), steps = std::stoul(a["--steps"]);
    const bool verify = a.count("--verify") > 0;
    std::string recorded;
    if (verify) {
      std::ifstream jf(a["--verify"]);
      recorded.assign((std::istreambuf_iterator<char>(jf)), std::istreambuf_iterator<char>());
      c.context = json_number(recorded, "context"), c.width = json_number(recorded, "width");
      c.layers = json_number(recorded, "layers"), c.heads = json_number(recorded, "heads");
      c.kv_heads = json_number(recorded, "kv_heads"), c.seed = json_number(recorded, "seed");
      B = json_number(recorded, "batch");
      t.total_steps = json_number(recorded, "steps");
      steps = std::min<std::size_t>(std::stoul(a.count("--verify-steps") ? a["--verify-steps"] : "20"), t.total_steps);
    } else {
      c.context = std::stoul(a["--context"]), c.width = std::stoul(a["--width"]);
      c.layers = std::stoul(a["--layers"]), c.heads = std::stoul(a["--heads"]);
      c.kv_heads = std::stoul(a["--kv-heads"]), c.seed = std::stoull(a["--seed"]);
      t.total_steps = steps;
    }
    double unigram = 0, bigram = 0;
    baselines(d, unigram, bigram);
    std::printf("%s: %zu characters (%zu train, %zu held out), vocabulary %zu; baselines (add-one) unigram %.4f, bigram %.4f nats/char\n",
                a["--lang"].c_str(), d.train.size() + d.val.size(), d.train.size(), d.val.size(), d.vocab.size(), unigram, bigram);

    attn::CharModel model(c, t);
    attn::NormalRng rng(c.seed ^ 0x9e3779b97f4a7c15ull);  // the batches' stream, apart from the weights'
    std::vector<std::uint32_t> in, out;
    std::vector<double> losses;
    const std::clock_t cpu0 = std::clock();
    const auto wall0 = std::chrono::steady_clock::now();
    for (std::size_t s = 0; s < steps; ++s) {
      batch(rng, d.train, B, c.context, in, out);
      losses.push_back(model.train_step(in, out, B));
      if (!verify && (s % 100 == 0 || s + 1 == steps)) std::printf("  step %zu loss %.4f\n", s, losses.back());
    }
    const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    if (verify) {
      int bad = 0;
      const std::vector<double> want = recorded_losses(recorded);
      for (std::size_t s = 0; s < steps; ++s) {
        const double rel = std::fabs(losses[s] - want.at(s)) / want.at(s);
        if (rel > 1e-3) ++bad, std::printf("step %zu: loss %.9g, recorded %.9g\n", s, losses[s], want[s]);
      }
      std::printf("%zu retrained losses against the record: %s\n", steps, bad ? "DIFFERENT" : "match (rel. 1e-3)");
      std::ifstream cf(a.at("--ckpt"), std::ios::binary);
      const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(cf)), std::istreambuf_iterator<char>());
      const attn::Checkpoint ck = attn::load_checkpoint(bytes.data(), bytes.size());
      const double v = validation_loss(ck.model, d.val);
      const bool vocab_ok = ck.vocabulary == d.vocab;
      std::printf("shipped checkpoint: %zu bytes, validation %.4f nats/char, bigram %.4f: %s; vocabulary %s\n",
                  bytes.size(), v, bigram, v < bigram ? "below" : "NOT below", vocab_ok ? "matches" : "DIFFERS");
      return bad || !(v < bigram) || !vocab_ok ? 1 : 0;
    }

    const double val = validation_loss(model, d.val);
    std::printf("%s: validation %.4f nats/char after %zu steps (bigram %.4f, unigram %.4f); %.1f s CPU, %.1f s wall\n",
                a["--lang"].c_str(), val, steps, bigram, unigram, cpu, wall);
    const std::vector<std::uint8_t> bytes = attn::save_checkpoint(model, d.vocab, {attn::WeightFormat::F16, false});
    std::ofstream(a.at("--ckpt"), std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                           static_cast<std::streamsize>(bytes.size()));
    const attn::Checkpoint shipped = attn::load_checkpoint(bytes.data(), bytes.size());
    const double val16 = validation_loss(shipped.model, d.val);
    std::printf("checkpoint %zu bytes (fp16); validation with the fp16 weights %.4f\n", bytes.size(), val16);
    std::vector<std::string> samples;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      attn::SampleOptions o;
      o.temperature = 0.8;
      o.seed = seed;
      std::string s;
      for (std::uint32_t tok : attn::sample(shipped.model, {}, 200, o)) s += utf8_encode(d.vocab[tok]);
      samples.push_back(s);
      std::printf("sample (seed %llu, T 0.8): %s\n", static_cast<unsigned long long>(seed), s.c_str());
    }
    std::ofstream j(a.at("--json"));
    j << "{\n  \"language\": " << json_string(a["--lang"]) << ",\n"
      << "  \"command\": " << json_string(a["--command"]) << ",\n"
      << "  \"corpus\": \"the lesson's own prose, web/text/" << a["--lang"] << "/*.json through build-scripts/char-corpus.mjs; last 10% held out\",\n"
      << "  \"characters\": {\"train\": " << d.train.size() << ", \"validation\": " << d.val.size() << "},\n"
      << "  \"config\": {\"vocab\": " << c.vocab << ", \"context\": " << c.context << ", \"width\": " << c.width
      << ", \"layers\": " << c.layers << ", \"heads\": " << c.heads << ", \"kv_heads\": " << c.kv_heads
      << ", \"parameters\": " << attn::char_model_parameter_count(c) << "},\n"
      << "  \"training\": {\"steps\": " << steps << ", \"batch\": " << B << ", \"seed\": " << c.seed
      << ", \"lr_max\": " << num(t.lr_max) << ", \"lr_min\": " << num(t.lr_min) << ", \"warmup\": " << t.warmup
      << ", \"weight_decay\": " << num(t.adam.weight_decay) << ", \"clip_norm\": " << num(t.clip_norm) << "},\n"
      << "  \"checkpoint\": {\"format\": \"F16\", \"bytes\": " << bytes.size() << "},\n"
      << "  \"validation_nats_per_char\": {\"model\": " << num(val) << ", \"model_fp16\": " << num(val16)
      << ", \"bigram_add_one\": " << num(bigram) << ", \"unigram_add_one\": " << num(unigram) << "},\n"
      << "  \"samples_temperature_0_8\": [";
    for (std::size_t i = 0; i < samples.size(); ++i) j << (i ? ", " : "") << json_string(samples[i]);
    j << "],\n  \"train_loss\": [";
    for (std::size_t i = 0; i < losses.size(); ++i) j << (i ? ", " : "") << num(losses[i]);
    j << "]\n}\n";
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_char: %s\n", e.what());
    return 2;
  }
}
