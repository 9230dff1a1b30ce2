export { dashboardPage, runPage } from "./admin-pages.js";
export { type AdminHttpOptions, adminRoutes } from "./admin-routes.js";
