// LTI Dynamic Registration: tell the platform's window that the tool is registered, so it closes this one.
(window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
