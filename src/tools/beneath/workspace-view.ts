import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The filesystem as one run's tools see it. A run with a copy-on-write layer works in a private
 * mount namespace where the layer is mounted over its workspace; the worker itself stays in the
 * host's namespace. Every host-side file operation of the run's tool calls then starts at that
 * namespace's root (a descriptor the layer holds open, so it cannot be swapped or outlive the
 * namespace into another process's), and every exec enters that namespace: exec and file tools
 * see the same layer, and none of them touches the real workspace until the run lands.
 *
 * Ambient rather than passed: the view is like a chroot for the duration of a call, and every path
 * a tool resolves (the path fence, the held-descriptor walks, skills, knowledge, vision) must use
 * it; a parameter some call site forgets would read the real workspace instead.
 */
export interface WorkspaceView {
  /** The run's workspace (real path on the host), where the layer is mounted in the namespace. */
  readonly workspace: string;
  /** A path naming the namespace's root directory, e.g. `/proc/self/fd/41` (no trailing slash). */
  readonly root: string;
  /**
   * A path naming the namespace itself, as `nsenter --mount=` takes it: `/proc/<worker pid>/fd/N`,
   * valid for the worker's children while the layer holds the descriptor.
   */
  readonly mountNamespace: string;
  /** The user namespace the mount namespace belongs to, when the worker is not root. */
  readonly userNamespace?: string;
}

const current = new AsyncLocalStorage<WorkspaceView>();

/** Runs `use` with every file operation of its tool calls in `view` (none: the host's view). */
export function withWorkspaceView<T>(view: WorkspaceView | undefined, use: () => Promise<T>): Promise<T> {
  return view === undefined ? current.exit(use) : current.run(view, use);
}

/** The view of the tool call in progress, or undefined for the host's. */
export function currentWorkspaceView(): WorkspaceView | undefined {
  return current.getStore();
}

/**
 * `path` (absolute) as the current view reaches it: through the namespace's root when a layer is
 * active. For lstat/readlink-style calls on paths already free of links (the path fence walks one
 * component at a time): the kernel resolves the rest inside the namespace.
 */
export function viewedPath(path: string): string {
  const view = current.getStore();
  if (view === undefined) return path;
  return path === "/" ? view.root : `${view.root}${path}`;
}
