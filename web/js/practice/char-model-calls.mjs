// A throwaway character model for a practice question, through either engine the
// generators receive: engine.mjs loaded in Node (a model is a handle, engine.charModel)
// or the page's worker client (engine-client.mjs), where a handle cannot cross to the
// page and the worker keeps the model under an id (char-model-worker.mjs). The client
// is the one with `call`; engine.mjs has no such method.

const isClient = (engine) => typeof engine.call === 'function';

/**
 * The mean loss (nats per character) of a freshly created, untrained model `config`
 * (engine.charModel's options) predicting text[1..] from text[..n−1]; the model is
 * freed before this returns, whatever happens.
 */
export async function untrainedLoss(engine, config, text) {
  const inputs = Uint32Array.from(text.slice(0, -1));
  const targets = Uint32Array.from(text.slice(1));
  if (isClient(engine)) {
    const { id } = await engine.charModelCreate(config);
    try {
      return await engine.charModelEvaluate({ id, inputs, targets, batch: 1 });
    } finally {
      await engine.charModelDelete({ id });
    }
  }
  const model = engine.charModel(config);
  try {
    return model.evaluate(inputs, targets, 1);
  } finally {
    model.delete();
  }
}
