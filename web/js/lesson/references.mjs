// The works the lesson leans on: one list, numbered in this order, shown in full by
// sections/refs.mjs and cited in the text by cite() as a small numbered link to
// its entry (#ref-<id>). Titles, authors and venues stay in their original
// English (an LTR block); what the lesson takes from each is a text key,
// `refs.<id>.use`, in both languages. The Persian article has no English
// citation: its entry is written from its own text key `refs.article.cite`.
//
// Usage:
//   import { REFS, SECTION_REFS, cite, refNumber } from './references.mjs';
//   p.append(cite(ctx, 'vaswani2017'));          // <sup><a href="#ref-vaswani2017">[1]</a></sup>
//   p.append(cite(ctx, 'dao2022', 'dao2023'));    // [4, 5]
// SECTION_REFS says which entries each section relies on; pages/lesson.mjs adds a
// "sources for this section" line to the sections that do not cite in their text.

export const REFS = [
  {
    id: 'vaswani2017',
    authors: 'Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones, Aidan N. Gomez, Łukasz Kaiser, Illia Polosukhin',
    year: 2017, title: 'Attention Is All You Need',
    venue: 'Advances in Neural Information Processing Systems 30 (NeurIPS 2017), pp. 5998–6008. arXiv:1706.03762',
    url: 'https://arxiv.org/abs/1706.03762',
  },
  {
    id: 'milakov2018',
    authors: 'Maxim Milakov, Natalia Gimelshein',
    year: 2018, title: 'Online normalizer calculation for softmax',
    venue: 'arXiv:1805.02867',
    url: 'https://arxiv.org/abs/1805.02867',
  },
  {
    id: 'rabe2021',
    authors: 'Markus N. Rabe, Charles Staats',
    year: 2021, title: 'Self-attention Does Not Need O(n²) Memory',
    venue: 'arXiv:2112.05682',
    url: 'https://arxiv.org/abs/2112.05682',
  },
  {
    id: 'dao2022',
    authors: 'Tri Dao, Daniel Y. Fu, Stefano Ermon, Atri Rudra, Christopher Ré',
    year: 2022, title: 'FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness',
    venue: 'Advances in Neural Information Processing Systems 35 (NeurIPS 2022). arXiv:2205.14135',
    url: 'https://arxiv.org/abs/2205.14135',
  },
  {
    id: 'dao2023',
    authors: 'Tri Dao',
    year: 2023, title: 'FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning',
    venue: 'arXiv:2307.08691 (ICLR 2024)',
    url: 'https://arxiv.org/abs/2307.08691',
  },
  {
    id: 'su2021',
    authors: 'Jianlin Su, Yu Lu, Shengfeng Pan, Ahmed Murtadha, Bo Wen, Yunfeng Liu',
    year: 2021, title: 'RoFormer: Enhanced Transformer with Rotary Position Embedding',
    venue: 'arXiv:2104.09864; Neurocomputing 568 (2024), 127063',
    url: 'https://arxiv.org/abs/2104.09864',
  },
  {
    id: 'chen2023',
    authors: 'Shouyuan Chen, Sherman Wong, Liangjian Chen, Yuandong Tian',
    year: 2023, title: 'Extending Context Window of Large Language Models via Positional Interpolation',
    venue: 'arXiv:2306.15595',
    url: 'https://arxiv.org/abs/2306.15595',
  },
  {
    id: 'peng2023',
    authors: 'Bowen Peng, Jeffrey Quesnelle, Honglu Fan, Enrico Shippole',
    year: 2023, title: 'YaRN: Efficient Context Window Extension of Large Language Models',
    venue: 'arXiv:2309.00071 (ICLR 2024)',
    url: 'https://arxiv.org/abs/2309.00071',
  },
  {
    id: 'pytorch-sdpa',
    authors: 'PyTorch contributors',
    year: null, title: 'torch.nn.functional.scaled_dot_product_attention',
    venue: 'PyTorch documentation',
    url: 'https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html',
  },
  {
    id: 'shazeer2019',
    authors: 'Noam Shazeer',
    year: 2019, title: 'Fast Transformer Decoding: One Write-Head is All You Need',
    venue: 'arXiv:1911.02150',
    url: 'https://arxiv.org/abs/1911.02150',
  },
  {
    id: 'ainslie2023',
    authors: 'Joshua Ainslie, James Lee-Thorp, Michiel de Jong, Yury Zemlyanskiy, Federico Lebrón, Sumit Sanghai',
    year: 2023, title: 'GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints',
    venue: 'Proceedings of EMNLP 2023. arXiv:2305.13245',
    url: 'https://arxiv.org/abs/2305.13245',
  },
  {
    id: 'beltagy2020',
    authors: 'Iz Beltagy, Matthew E. Peters, Arman Cohan',
    year: 2020, title: 'Longformer: The Long-Document Transformer',
    venue: 'arXiv:2004.05150',
    url: 'https://arxiv.org/abs/2004.05150',
  },
  {
    id: 'jiang2023',
    authors: 'Albert Q. Jiang, Alexandre Sablayrolles, Arthur Mensch, Chris Bamford, Devendra Singh Chaplot, Diego de las Casas, Florian Bressand, Gianna Lengyel, Guillaume Lample, Lucile Saulnier, Lélio Renard Lavaud, Marie-Anne Lachaux, Pierre Stock, Teven Le Scao, Thibaut Lavril, Thomas Wang, Timothée Lacroix, William El Sayed',
    year: 2023, title: 'Mistral 7B',
    venue: 'arXiv:2310.06825',
    url: 'https://arxiv.org/abs/2310.06825',
  },
  {
    id: 'pope2022',
    authors: 'Reiner Pope, Sholto Douglas, Aakanksha Chowdhery, Jacob Devlin, James Bradbury, Anselm Levskaya, Jonathan Heek, Kefan Xiao, Shivani Agrawal, Jeff Dean',
    year: 2022, title: 'Efficiently Scaling Transformer Inference',
    venue: 'Proceedings of Machine Learning and Systems 5 (MLSys 2023). arXiv:2211.05102',
    url: 'https://arxiv.org/abs/2211.05102',
  },
  {
    id: 'kwon2023',
    authors: 'Woosuk Kwon, Zhuohan Li, Siyuan Zhuang, Ying Sheng, Lianmin Zheng, Cody Hao Yu, Joseph E. Gonzalez, Hao Zhang, Ion Stoica',
    year: 2023, title: 'Efficient Memory Management for Large Language Model Serving with PagedAttention',
    venue: 'Proceedings of SOSP 2023. arXiv:2309.06180',
    url: 'https://arxiv.org/abs/2309.06180',
  },
  {
    id: 'llama3',
    authors: 'Llama Team, AI @ Meta (Abhimanyu Dubey et al.)',
    year: 2024, title: 'The Llama 3 Herd of Models',
    venue: 'arXiv:2407.21783',
    url: 'https://arxiv.org/abs/2407.21783',
  },
  {
    id: 'gemma2',
    authors: 'Gemma Team, Google DeepMind (Morgane Riviere et al.)',
    year: 2024, title: 'Gemma 2: Improving Open Language Models at a Practical Size',
    venue: 'arXiv:2408.00118',
    url: 'https://arxiv.org/abs/2408.00118',
  },
  {
    id: 'qwen2',
    authors: 'Qwen Team, Alibaba Group (An Yang et al.)',
    year: 2024, title: 'Qwen2 Technical Report',
    venue: 'arXiv:2407.10671',
    url: 'https://arxiv.org/abs/2407.10671',
  },
  // The Persian article the lesson grew from; its citation is prose (refs.article.cite).
  { id: 'article', local: true },
];

export const SECTION_REFS = {
  s1: ['vaswani2017'],
  s2: ['vaswani2017'],
  s3: ['milakov2018', 'rabe2021'],
  s4: ['vaswani2017', 'article'],
  s5: ['milakov2018'],
  s6: ['vaswani2017', 'pytorch-sdpa'],
  s7: ['su2021', 'chen2023', 'peng2023', 'article'],
  s8: ['milakov2018', 'rabe2021', 'dao2022', 'dao2023'],
  s9: ['pytorch-sdpa'],
  heads: ['vaswani2017', 'shazeer2019', 'ainslie2023'],
  window: ['beltagy2020', 'jiang2023'],
  kvcache: ['pope2022', 'kwon2023', 'shazeer2019', 'ainslie2023', 'jiang2023', 'llama3', 'gemma2', 'qwen2'],
};

/** 1-based position of a work in the list (what the reader sees in the link). */
export function refNumber(id) {
  const i = REFS.findIndex((r) => r.id === id);
  if (i < 0) throw new Error(`unknown reference ${id}`);
  return i + 1;
}

/** A small superscript link "[n]" (or "[n، m]") to the entries in the sources section. */
export function cite(ctx, ...ids) {
  const sup = document.createElement('sup');
  sup.className = 'cite';
  sup.append('[');
  ids.forEach((id, i) => {
    if (i) sup.append('، ');
    const a = document.createElement('a');
    a.href = `#ref-${id}`;
    a.dataset.cite = id;
    a.textContent = ctx.fmt(refNumber(id), { useGrouping: false });
    a.setAttribute('aria-label', ctx.t('refs.citeLabel', { n: ctx.fmt(refNumber(id), { useGrouping: false }) }));
    sup.append(a);
  });
  sup.append(']');
  return sup;
}
