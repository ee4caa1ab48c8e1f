// Stylesheets are imported for their effect; Vite bundles them. Anything else imported bare must resolve.
declare module '*.css';
