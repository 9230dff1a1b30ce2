/** Whether a tool reads or writes a path (the path fence checks writes against more rules). */
export const PATH_ACCESS = ["read", "write"] as const;
export type PathAccess = (typeof PATH_ACCESS)[number];
