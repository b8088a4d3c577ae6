// aws-local-stepfunctions 3 calls Promise.withResolvers (Node 22+); older
// Node.js (Debian's 18, the machine's 20) get it here: node --import.
if (!Promise.withResolvers) {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new this((yes, no) => { resolve = yes; reject = no; });
    return { promise, resolve, reject };
  };
}
