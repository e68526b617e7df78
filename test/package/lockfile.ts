/**
 * Offline installs for the packed-artifact test. After `npm ci`, npm's cache holds every tarball
 * that package-lock.json pins, but `npm install <tarball>` would resolve the tarball's ranges
 * (`zod@^4.1.8`, ...) against registry metadata, possibly to versions that are not cached. So the
 * throwaway project gets a package-lock.json whose entries are copied from this repository's: then
 * `npm ci --offline` only takes pinned tarballs out of the cache. Each entry gets its tarball URL
 * (this repository's lockfile omits them, `omit-lockfile-registry-resolved`), so not even the
 * registry metadata that would map a version to its tarball is needed: the integrity finds it.
 */
import { runtimeClosure, type LockEntry, type Lockfile } from "../../scripts/runtime-deps.ts";

export interface LocalTarball {
  /** `file:` spec, as in the consumer's package.json. */
  spec: string;
  /** From `npm pack --json`. */
  integrity: string;
  /** The packed package.json. */
  manifest: Record<string, any>;
}

/**
 * A lockfile for a consumer project whose package.json has `dependencies`: registry dependencies
 * (and those of the local tarballs) are locked exactly as in `source`, with their runtime closure;
 * `local` names are the packed tarballs.
 */
export function consumerLock(
  source: Lockfile,
  project: { name: string; dependencies: Record<string, string> },
  local: Record<string, LocalTarball>,
  registry = "https://registry.npmjs.org/",
): Lockfile {
  const packages: Record<string, LockEntry> = {
    "": { name: project.name, version: "0.0.0", dependencies: project.dependencies },
  };
  const roots = [
    ...Object.keys(project.dependencies).filter((name) => !local[name]),
    ...Object.values(local).flatMap(({ manifest }) => Object.keys(manifest.dependencies ?? {})),
  ];
  for (const at of runtimeClosure(source, roots)) {
    // In the consumer every copied package is a production dependency.
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = source.packages[at]!;
    entry.resolved ??= tarballUrl(registry, at.slice(at.lastIndexOf("node_modules/") + "node_modules/".length), entry.version!);
    packages[at] = entry;
  }
  for (const [name, { spec, integrity, manifest }] of Object.entries(local)) {
    const entry: LockEntry = { version: manifest.version, resolved: spec, integrity };
    for (const key of ["license", "dependencies", "peerDependencies", "peerDependenciesMeta", "bin", "engines"]) {
      if (manifest[key] !== undefined) entry[key] = manifest[key];
    }
    packages[`node_modules/${name}`] = entry;
  }
  return { name: project.name, version: "0.0.0", lockfileVersion: 3, requires: true, packages };
}

/** The registry's tarball URL for `name@version` (`@scope/name` -> `@scope/name/-/name-1.0.0.tgz`). */
export function tarballUrl(registry: string, name: string, version: string): string {
  const base = registry.endsWith("/") ? registry : `${registry}/`;
  return `${base}${name}/-/${name.slice(name.lastIndexOf("/") + 1)}-${version}.tgz`;
}
