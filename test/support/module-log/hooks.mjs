// Module resolution hook (see register.mjs): names the package of every module resolved from
// node_modules, once per package.
const seen = new Set();

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url);
  if (match && !seen.has(match[1])) {
    seen.add(match[1]);
    process.stderr.write(`module-log: ${match[1]}\n`);
  }
  return resolved;
}
