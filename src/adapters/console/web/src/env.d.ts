/** Stylesheets are bundled by vite. */
declare module '*.css';
