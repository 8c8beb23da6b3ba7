// Sends only the latest of a fast stream of values (a slider being dragged): one request
// in flight at a time, and when it returns, the newest value that came in meanwhile.

export function latestOnly(send) {
  let inFlight = null; // the promise of the request on its way
  let queued;
  let hasQueued = false;
  let drained = Promise.resolve();
  let resolveDrained = null;

  function run(value) {
    inFlight = Promise.resolve(send(value)).catch(() => {}).finally(() => {
      inFlight = null;
      if (hasQueued) {
        hasQueued = false;
        run(queued);
      } else if (resolveDrained) {
        resolveDrained();
        resolveDrained = null;
      }
    });
  }

  /// Resolves once this value, or a newer one that replaced it, has been answered.
  return function push(value) {
    if (!resolveDrained) drained = new Promise((resolve) => { resolveDrained = resolve; });
    if (inFlight) {
      queued = value;
      hasQueued = true;
    } else {
      run(value);
    }
    return drained;
  };
}
