/**
 * Redis scripts kept as `.lua` files beside the modules that run them, read once at module load
 * (layer 0, so the tool room's stores can use it too; the pure core never imports it).
 */
export { type LuaScript, luaScript } from "./lua-file.js";
