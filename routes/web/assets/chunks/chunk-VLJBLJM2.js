var e=["USER","ADMIN","SUPERADMIN"];function n(t){return JSON.parse(t.dataset.config??"{}")}export{e as a,n as b};
