/** The portal's stylesheet, served as a static file (the CSP allows no inline style). */
export const STYLES = `:root{color-scheme:light;font-family:system-ui,sans-serif;line-height:1.4;color:#1b1f24;background:#fff}
body{margin:0}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.6rem 1rem;background:#1f3a5f;color:#fff}
header a{color:#fff}
header form{margin:0}
main{padding:1rem;max-width:80rem;margin:0 auto}
h1{font-size:1.4rem;margin:.2rem 0 1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,.scroll:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{text-align:left;vertical-align:top;padding:.4rem .5rem;border-bottom:1px solid #d8dde3}
th{background:#f2f4f7;white-space:nowrap}
small.exact,.none{color:#5b6470}
.status{display:inline-block;padding:.05rem .5rem;border-radius:1rem;font-weight:600;border:1px solid;white-space:nowrap}
.status-pending{background:#eef0f3;color:#3d4652}
.status-loaded,.status-running{background:#e3efff;color:#0b4aa2}
.status-completed{background:#e3f6e8;color:#146c2e}
.status-failed{background:#fde7e7;color:#a4161a}
.status-deleted{background:#ececec;color:#444}
.online{color:#146c2e;font-weight:600}.offline{color:#a4161a;font-weight:600}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin-bottom:1rem}
label{display:flex;flex-direction:column;font-size:.85rem;gap:.2rem}
input,select,button{font:inherit;padding:.35rem .5rem}
button{cursor:pointer}
.signin{max-width:28rem;margin:3rem auto}
.signin input{width:100%;box-sizing:border-box}
.message{padding:.6rem .8rem;border-radius:.3rem;background:#fde7e7;color:#7a1013;margin-bottom:1rem}
ol.script{font-family:ui-monospace,monospace;font-size:.88rem;background:#f7f8fa;border:1px solid #d8dde3;padding:.5rem .5rem .5rem 3.2rem;overflow-x:auto}
ol.script li{white-space:pre-wrap;word-break:break-all}
ol.script li.failing{background:#fde7e7;outline:1px solid #a4161a}
.router-error{display:block;color:#a4161a;font-family:system-ui,sans-serif;font-weight:600}
ol.timeline{padding-left:1.2rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
nav.pages{display:flex;gap:1rem;margin-top:1rem}
nav.sections{display:flex;gap:1rem;margin-right:auto}
.failed-count,.fail-text{color:#a4161a;font-weight:600}
table.deploy th[scope=row]{font-weight:600;background:none}
table.deploy caption{text-align:left;padding-bottom:.4rem}
table.deploy{table-layout:fixed}
table.deploy col.router-column{width:8rem}
table.deploy col.result-column{width:15rem}
table.deploy th,table.deploy td{overflow-wrap:anywhere}
table.deploy tr.lane th{background:#e8edf4;text-align:left}
td.track-cell{vertical-align:middle}
svg.track{display:block;width:100%;height:1.5rem;background:#f7f8fa}
.axis{display:flex;justify-content:space-between;gap:.5rem;font-weight:400}
.wave-span{fill:#e3efff}
.bar{fill:#8a94a3}
.bar-loaded,.bar-running{fill:#2f6fce}
.bar-completed{fill:#2e9e52}
.bar-failed{fill:#c62828}
.bar-deleted{fill:#9aa0a6}
.fail-mark{fill:#7a1013}
svg.track a:focus-visible rect{stroke:#f59e0b;stroke-width:3}
@media (max-width:600px){main{padding:.6rem}th,td{padding:.3rem}h1{font-size:1.2rem}table.deploy col.router-column{width:5.5rem}table.deploy col.result-column{width:7.2rem}table.deploy .status{font-size:.8rem;padding:0 .35rem}table.deploy small.router-error{display:none}.axis span:nth-child(2){display:none}}
`;
