// esbuild's text loader: a .css import is the file's text (adopted by the shadow root).
declare module '*.css' {
  const text: string;
  export default text;
}
