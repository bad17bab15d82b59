// The command line of the browser checks: `option(name, fallback)` takes `name VALUE`
// out of the arguments and returns VALUE (or `fallback` when the option is not given);
// what is left in `args` are the positional arguments.

export function commandLine(argv = process.argv.slice(2)) {
  const args = [...argv];
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    if (i === -1) return fallback;
    const value = args[i + 1];
    args.splice(i, 2);
    return value;
  };
  return { args, option };
}
