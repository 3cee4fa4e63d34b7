/* pilrc generated file.  Do not edit!*/
#define HelpString 9993
#define Sel1 9994
#define Label1 9995
#define Push1 9996
#define OkButton 9997
#define MainForm 9998
