/** The absolute path of the steerable-sidecar binary npm installed for this platform; throws saying why when there is none. */
export function binaryPath(): string;
/** The name of the package that holds the binary for a platform and CPU (Node's names: linux/darwin/win32, x64/arm64). */
export function packageName(platform?: string, arch?: string): string;
