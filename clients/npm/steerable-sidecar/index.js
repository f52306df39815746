"use strict";
// The steerable-sidecar npm package: the binary for this platform lives in
// one of its optional dependencies (steerable-sidecar-linux-x64, …, each
// limited by its os and cpu fields, so npm installs only the one that
// runs here). binaryPath() finds it; hosts spawn that path directly.
const path = require("path");
const { optionalDependencies } = require("./package.json");

/** The name of the package that holds the binary for a platform and CPU (Node's names). */
function packageName(platform = process.platform, arch = process.arch) {
  return `steerable-sidecar-${platform}-${arch}`;
}

/** The absolute path of the binary npm installed for this platform. */
function binaryPath() {
  const pkg = packageName();
  if (!optionalDependencies || !(pkg in optionalDependencies)) {
    const built = Object.keys(optionalDependencies || {}).map((p) => p.replace("steerable-sidecar-", ""));
    throw new Error(`steerable-sidecar has no binary for ${process.platform}-${process.arch}; it is built for ${built.join(", ")}`);
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(
      `${pkg}, the package with this platform's binary, is not installed; npm skips optional dependencies ` +
        `under --omit=optional (or --no-optional): install again without it`,
    );
  }
  return path.join(dir, "bin", process.platform === "win32" ? "steerable-sidecar.exe" : "steerable-sidecar");
}

module.exports = { binaryPath, packageName };
